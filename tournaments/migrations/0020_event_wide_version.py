from django.db import migrations, models


def wide_as_version(apps, schema_editor):
    """Every event's last change counts as one of the whole event's."""
    Event = apps.get_model("tournaments", "Event")
    Event.objects.update(wide_version=models.F("version"))


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0019_sheet_builds")]

    operations = [
        migrations.AddField(
            model_name="event",
            name="wide_version",
            field=models.PositiveBigIntegerField(default=0, verbose_name="全项目版本"),
        ),
        migrations.RunPython(wide_as_version, migrations.RunPython.noop),
    ]
