"""Team leaders' invitations by one-time link: a login link names either a referee (an
official) or a unit and its leader's account, and every link names its tournament."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def tournament_of_each_link(apps, schema_editor):
    LoginLink = apps.get_model("tournaments", "LoginLink")
    for link in LoginLink.objects.select_related("official").only("pk", "official__tournament_id"):
        LoginLink.objects.filter(pk=link.pk).update(tournament_id=link.official.tournament_id)


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0011_tournament_confirmation"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="loginlink",
            name="tournament",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="login_links",
                to="tournaments.tournament",
                verbose_name="比赛",
            ),
        ),
        migrations.RunPython(tournament_of_each_link, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="loginlink",
            name="tournament",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE,
                related_name="login_links",
                to="tournaments.tournament",
                verbose_name="比赛",
            ),
        ),
        migrations.AddField(
            model_name="loginlink",
            name="leader",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="leader_links",
                to=settings.AUTH_USER_MODEL,
                verbose_name="领队账号",
            ),
        ),
        migrations.AddField(
            model_name="loginlink",
            name="unit",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="leader_links",
                to="tournaments.unit",
                verbose_name="单位",
            ),
        ),
        migrations.AlterField(
            model_name="loginlink",
            name="official",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="login_links",
                to="tournaments.official",
                verbose_name="裁判",
            ),
        ),
        migrations.AddConstraint(
            model_name="loginlink",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(official__isnull=False, unit__isnull=True, leader__isnull=True),
                    models.Q(official__isnull=True, unit__isnull=False, leader__isnull=False),
                    _connector="OR",
                ),
                name="login_link_official_or_leader",
            ),
        ),
    ]
