import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0007_referee_login_links"),
    ]

    operations = [
        migrations.AddField(
            model_name="event",
            name="changed_at",
            field=models.DateTimeField(
                default=django.utils.timezone.now, verbose_name="最后更新"
            ),
        ),
    ]
