"""The read-only REST API (Django REST framework) of the dataset."""
