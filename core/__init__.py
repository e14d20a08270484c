"""What every stage of the data path shares, importing no app.

Some modules are pure (``statistics``, ``paths``, ``memory``, ``version``: no Django, each says so);
the others are the Django pieces every app uses: roles, the sharded-job coordinator, the API's filters.
"""
