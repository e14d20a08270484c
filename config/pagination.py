"""The API's one pagination: limit/offset pages of at most API_MAX_PAGE_SIZE rows."""

from __future__ import annotations

from django.conf import settings
from rest_framework.pagination import LimitOffsetPagination


class BoundedLimitOffsetPagination(LimitOffsetPagination):
    """A larger ``limit`` is cut to the maximum; a bad one gives the default page size."""

    max_limit = settings.API_MAX_PAGE_SIZE

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            schema = parameter["schema"]
            if parameter["name"] == self.limit_query_param:
                schema.update(minimum=1, maximum=self.max_limit)
                parameter["description"] = f"Number of results to return per page (at most {self.max_limit})."
            elif parameter["name"] == self.offset_query_param:
                schema["minimum"] = 0
        return parameters
