"""TableMatch.referee points at the tournament's Official instead of a login (User); existing
rows map to the official of that tournament holding the user (a referee first), one made
where there is none."""

from django.db import migrations, models
import django.db.models.deletion

from tournaments.migrations._referees import official_for


def users_to_officials(apps, schema_editor):
    TableMatch = apps.get_model("scoring", "TableMatch")
    Official = apps.get_model("tournaments", "Official")
    cache = {}
    for t in TableMatch.objects.filter(referee__isnull=False).select_related(
        "referee", "match__round__stage__event"
    ):
        tid = t.match.round.stage.event.tournament_id
        t.referee_official = official_for(Official, tid, t.referee, cache)
        t.save(update_fields=["referee_official"])


def officials_to_users(apps, schema_editor):
    TableMatch = apps.get_model("scoring", "TableMatch")
    for t in TableMatch.objects.filter(referee_official__isnull=False).select_related(
        "referee_official"
    ):
        t.referee_id = t.referee_official.user_id
        t.save(update_fields=["referee"])


class Migration(migrations.Migration):
    dependencies = [
        ("scoring", "0002_report_idempotency_key"),
        ("tournaments", "0010_referee_is_an_official"),
    ]

    operations = [
        migrations.AddField(
            model_name="tablematch",
            name="referee_official",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="tournaments.official",
            ),
        ),
        migrations.RunPython(users_to_officials, officials_to_users),
        migrations.RemoveField(model_name="tablematch", name="referee"),
        migrations.RenameField(
            model_name="tablematch", old_name="referee_official", new_name="referee"
        ),
        migrations.AlterField(
            model_name="tablematch",
            name="referee",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="refereed_tables",
                to="tournaments.official",
                verbose_name="裁判",
            ),
        ),
    ]
