"""Match.referee points at the tournament's Official instead of a login (User): an official
can be assigned before they have logged in. Existing rows map to the official of that
tournament holding the user (a referee first); a user with no official there gets one."""

from django.db import migrations, models
import django.db.models.deletion

from tournaments.migrations._referees import official_for


def users_to_officials(apps, schema_editor):
    Match = apps.get_model("tournaments", "Match")
    Official = apps.get_model("tournaments", "Official")
    cache = {}
    for m in Match.objects.filter(referee__isnull=False).select_related(
        "referee", "round__stage__event"
    ):
        tid = m.round.stage.event.tournament_id
        m.referee_official = official_for(Official, tid, m.referee, cache)
        m.save(update_fields=["referee_official"])


def officials_to_users(apps, schema_editor):
    Match = apps.get_model("tournaments", "Match")
    for m in Match.objects.filter(referee_official__isnull=False).select_related(
        "referee_official"
    ):
        m.referee_id = m.referee_official.user_id
        m.save(update_fields=["referee"])


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0009_normalise_names")]

    operations = [
        migrations.AddField(
            model_name="match",
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
        migrations.RemoveField(model_name="match", name="referee"),
        migrations.RenameField(
            model_name="match", old_name="referee_official", new_name="referee"
        ),
        migrations.AlterField(
            model_name="match",
            name="referee",
            field=models.ForeignKey(
                blank=True,
                help_text="负责本场各台的裁判",
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="refereed_matches",
                to="tournaments.official",
                verbose_name="裁判",
            ),
        ),
    ]
