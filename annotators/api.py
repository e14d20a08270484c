"""API of machine annotators (``/api/annotators/``): jobs that ask a model a campaign's questions. Curators only.

A job is created with the campaign's slug, a registered model's name (``openai_chat`` or
``causal_lm``), optionally a template, the number of samples and settings; a bad value is a 400
naming the field. Every write goes through ``annotators.actions`` (via ``annotators.tasks``).
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django_filters import FilterSet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError as DRFValidationError
from rest_framework.response import Response
from rest_framework.routers import DefaultRouter

from annotation.models import Campaign
from annotators import prompts
from annotators.actions import MAX_SAMPLES, AnnotatorError, cancel_job
from annotators.models import AnnotationJob
from annotators.tasks import resume, start_job
from core.filters import ChoiceFilter, ListFilterBackend, TextFilter
from core.permissions import IsCurator
from probing.models import EmbeddingModel


class AnnotationJobSerializer(serializers.ModelSerializer):
    campaign = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    model = serializers.SlugRelatedField(slug_field="name", read_only=True)
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    machine_annotators = serializers.SlugRelatedField(slug_field="label", read_only=True, many=True)
    progress = serializers.FloatField(read_only=True)

    class Meta:
        model = AnnotationJob
        fields = [
            "id", "campaign", "model", "template_name", "template_version", "settings", "samples",
            "machine_annotators", "status", "queue", "shards_total", "shards_done", "items_total", "answered",
            "invalid", "cached", "requests", "prompt_tokens", "completion_tokens", "cost", "progress", "error",
            "created_by", "created_at", "started_at", "finished_at",
        ]  # fmt: skip
        read_only_fields = fields


class AnnotationJobCreateSerializer(serializers.Serializer):
    campaign = serializers.CharField(help_text="The campaign's slug.")
    model = serializers.CharField(help_text="A registered openai_chat or causal_lm model.")
    template = serializers.ChoiceField(choices=sorted(prompts.TEMPLATES), required=False, allow_null=True)
    samples = serializers.IntegerField(min_value=1, max_value=MAX_SAMPLES, default=1)
    settings = serializers.JSONField(required=False, default=dict, help_text="annotators.config settings.")

    def validate_campaign(self, slug: str) -> Campaign:
        campaign = Campaign.objects.filter(slug=slug).first()
        if campaign is None:
            raise serializers.ValidationError(f"No campaign {slug!r}.")
        return campaign

    def validate_model(self, name: str) -> EmbeddingModel:
        model = EmbeddingModel.objects.filter(name=name).first()
        if model is None:
            raise serializers.ValidationError(f"No model {name!r}.")
        return model


class AnnotationJobFilterSet(FilterSet):
    status = ChoiceFilter(choices=AnnotationJob.Status.choices, help_text="The job's status.")
    campaign = TextFilter(field_name="campaign__slug", help_text="A campaign's slug.")
    model = TextFilter(field_name="model__name", help_text="A model's name.")


JOB_ID = OpenApiParameter("id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The job id.")


@extend_schema_view(
    list=extend_schema(description="Machine-annotation jobs, newest first (curators only)."),
    retrieve=extend_schema(parameters=[JOB_ID], description="One job with its progress, tokens and cost."),
)
class AnnotationJobViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """A model asked every regular item of a campaign, in shards on the model's Celery queue."""

    permission_classes = [IsCurator]
    filter_backends = [ListFilterBackend]
    filterset_class = AnnotationJobFilterSet
    serializer_class = AnnotationJobSerializer

    def get_queryset(self):
        return AnnotationJob.objects.select_related("campaign", "model", "created_by").prefetch_related(
            "machine_annotators"
        )

    def _detail(self, job: AnnotationJob, code: int = status.HTTP_200_OK) -> Response:
        job = get_object_or_404(self.get_queryset(), pk=job.pk)
        return Response(AnnotationJobSerializer(job).data, status=code)

    @extend_schema(request=AnnotationJobCreateSerializer, responses={201: AnnotationJobSerializer})
    def create(self, request, *args, **kwargs):
        """Start a job: its shards go to the model's queue once the request commits."""
        body = AnnotationJobCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            job = start_job(
                data["campaign"], data["model"], data.get("template"), data["samples"], data["settings"], request.user
            )
        except AnnotatorError as error:
            raise DRFValidationError({error.field: [str(error)]}) from None
        return self._detail(job, status.HTTP_201_CREATED)

    @extend_schema(parameters=[JOB_ID], request=None, responses={200: AnnotationJobSerializer})
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        """Cancel a queued or running job (answers recorded so far are kept)."""
        job = self.get_object()
        cancel_job(job)
        return self._detail(job)

    @extend_schema(parameters=[JOB_ID], request=None, responses={200: AnnotationJobSerializer})
    @action(detail=True, methods=["post"])
    def resume(self, request, pk=None):
        """Enqueue again the shards not done; a 400 for a job done."""
        job = self.get_object()
        try:
            resume(job)
        except AnnotatorError as error:
            raise DRFValidationError({"detail": str(error)}) from None
        return self._detail(job)


app_name = "annotators_api"
router = DefaultRouter()
router.register("jobs", AnnotationJobViewSet, basename="job")
urlpatterns = router.urls
