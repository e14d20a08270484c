import pytest
from django.contrib.auth.models import Group, User


@pytest.mark.django_db
@pytest.mark.parametrize(("role", "shown"), [("anonymous", False), ("annotator", False), ("curator", True)])
def test_the_campaigns_link_is_shown_to_curators_only(client, role, shown):
    if role != "anonymous":
        user = User.objects.create_user(role)
        if role == "curator":
            user.groups.add(Group.objects.get(name="curators"))  # created by a data migration
        client.force_login(user)
    page = client.get("/").content.decode()
    assert ('href="/curate/"' in page) is shown
