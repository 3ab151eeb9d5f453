import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0005_certificate"),
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
