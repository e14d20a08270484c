"""API of probing: registered models, and probe runs with their progress, provenance and report.

Anyone may read; curators register models, start runs, cancel and resume them. Everything that
writes goes through ``probing.actions``. Only curators see where models load from, who started a
run and its errors (``probing.exposure``): the views put ``internals`` in the serializer context.
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django_filters import FilterSet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError as DRFValidationError
from rest_framework.response import Response

from core.filters import ChoiceFilter, ListFilterBackend, TextFilter
from core.permissions import IsCurator, is_curator
from probing.actions import SHARD_SIZE, ProbeError, cancel_run, register_model
from probing.exposure import public_model, public_progress, public_run
from probing.models import EmbeddingModel, ProbeRun
from probing.report.build import run_report
from probing.tasks import resume_probe_run, start_probe_run
from releases.models import Release


class EmbeddingModelSerializer(serializers.ModelSerializer):
    """A registered model: how it is loaded and its default embedding config."""

    class Meta:
        model = EmbeddingModel
        fields = [
            "name",
            "kind",
            "source",
            "options",
            "config",
            "queue",
            "active",
            "run_on_publish",
            "notes",
            "created_at",
        ]
        read_only_fields = ["created_at"]
        extra_kwargs = {"name": {"validators": []}}  # an existing name is refused in validate_name

    def validate_name(self, name: str) -> str:
        if EmbeddingModel.objects.filter(name=name).exists():
            raise serializers.ValidationError(f"A model named {name!r} exists already.")
        return name

    def to_representation(self, model: EmbeddingModel) -> dict:
        data = super().to_representation(model)
        return data if self.context.get("internals") else public_model(data)


class ProbeRunSerializer(serializers.ModelSerializer):
    """A run without its report."""

    release = serializers.SlugRelatedField(slug_field="version", read_only=True)
    model = serializers.SlugRelatedField(slug_field="name", read_only=True)
    created_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)

    class Meta:
        model = ProbeRun
        fields = [
            "id",
            "release",
            "model",
            "family",
            "config",
            "status",
            "queue",
            "shards_total",
            "shards_done",
            "texts_total",
            "texts_embedded",
            "texts_cached",
            "eta_seconds",
            "error",
            "created_by",
            "created_at",
            "started_at",
            "finished_at",
        ]
        read_only_fields = fields

    def to_representation(self, run: ProbeRun) -> dict:
        data = super().to_representation(run)
        return data if self.context.get("internals") else public_run(data)


class ProgressSerializer(serializers.Serializer):
    status = serializers.CharField()
    shards_done = serializers.IntegerField()
    shards_total = serializers.IntegerField()
    texts_done = serializers.IntegerField(help_text="Texts embedded or found cached, shards in flight included.")
    texts_total = serializers.IntegerField()
    texts_embedded = serializers.IntegerField()
    texts_cached = serializers.IntegerField()
    fraction = serializers.FloatField()
    eta_seconds = serializers.FloatField(allow_null=True)
    error = serializers.CharField()


class ProbeRunDetailSerializer(ProbeRunSerializer):
    """A run with its live progress, full provenance and report (the JSON of ``probe_report``)."""

    progress = serializers.SerializerMethodField()
    report = serializers.SerializerMethodField()

    class Meta(ProbeRunSerializer.Meta):
        fields = [*ProbeRunSerializer.Meta.fields, "progress", "provenance", "report"]
        read_only_fields = fields

    @extend_schema_field(ProgressSerializer)
    def get_progress(self, run: ProbeRun) -> dict:
        return run.progress()

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_report(self, run: ProbeRun) -> dict:
        return run_report(run)


class ProbeRunCreateSerializer(serializers.Serializer):
    """What a curator chooses: the release, the model and any config overrides."""

    release = serializers.CharField(help_text="Version of a published release.")
    model = serializers.CharField(help_text="Name of a registered model.")
    config = serializers.JSONField(required=False, default=dict, help_text="EmbedConfig overrides.")
    shard_size = serializers.IntegerField(
        min_value=1, max_value=1000, default=SHARD_SIZE, help_text="Compounds per shard."
    )

    def validate_release(self, version: str) -> Release:
        release = Release.objects.filter(version=version).first()
        if release is None:
            raise serializers.ValidationError(f"No release {version}.")
        return release

    def validate_model(self, name: str) -> EmbeddingModel:
        model = EmbeddingModel.objects.filter(name=name).first()
        if model is None:
            raise serializers.ValidationError(f"No model {name!r}.")
        return model


RUN_ID = OpenApiParameter("id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The run id.")
NAME = OpenApiParameter("name", OpenApiTypes.STR, OpenApiParameter.PATH, description="The model's name.")


@extend_schema_view(
    list=extend_schema(description="Registered embedding models."),
    retrieve=extend_schema(parameters=[NAME], description="One registered model."),
)
class EmbeddingModelViewSet(
    mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin, viewsets.GenericViewSet
):
    """Embedding models that can be probed."""

    queryset = EmbeddingModel.objects.all()
    serializer_class = EmbeddingModelSerializer
    lookup_field = "name"

    def get_serializer_context(self) -> dict:
        return {**super().get_serializer_context(), "internals": is_curator(getattr(self.request, "user", None))}

    def get_permissions(self):
        return [IsCurator()] if self.action == "create" else super().get_permissions()

    @extend_schema(description="Register a model (curators only); its options and config are validated.")
    def create(self, request, *args, **kwargs):
        body = self.get_serializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            model = register_model(**body.validated_data)
        except ProbeError as error:
            raise DRFValidationError({"detail": str(error)}) from None
        return Response(self.get_serializer(model).data, status=status.HTTP_201_CREATED)


class ProbeRunFilterSet(FilterSet):
    status = ChoiceFilter(choices=ProbeRun.Status.choices, help_text="The run's status.")
    model = TextFilter(field_name="model__name", help_text="A model's name.")
    release = TextFilter(field_name="release__version", help_text="A release's version.")


@extend_schema_view(
    list=extend_schema(description="Probe runs, newest first."),
    retrieve=extend_schema(parameters=[RUN_ID], description="One run with its progress, provenance and report."),
)
class ProbeRunViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """Probe runs: one release × model × config, computed shard by shard on Celery workers."""

    filter_backends = [ListFilterBackend]
    filterset_class = ProbeRunFilterSet

    def get_queryset(self):
        runs = ProbeRun.objects.select_related("release", "model", "created_by")
        return runs.defer("report", "provenance") if self.action == "list" else runs

    def get_serializer_class(self):
        if self.action == "create":
            return ProbeRunCreateSerializer
        return ProbeRunSerializer if self.action == "list" else ProbeRunDetailSerializer

    def get_permissions(self):
        if self.action in ("create", "cancel", "resume"):
            return [IsCurator()]
        return super().get_permissions()

    def get_serializer_context(self) -> dict:
        return {**super().get_serializer_context(), "internals": is_curator(getattr(self.request, "user", None))}

    def _detail(self, run: ProbeRun, code: int = status.HTTP_200_OK) -> Response:
        run = get_object_or_404(self.get_queryset(), pk=run.pk)
        return Response(ProbeRunDetailSerializer(run, context=self.get_serializer_context()).data, status=code)

    @extend_schema(
        request=ProbeRunCreateSerializer,
        responses={201: ProbeRunDetailSerializer},
        description="Start a run on a published release (curators only); its shards go to the model's queue.",
    )
    def create(self, request, *args, **kwargs):
        body = ProbeRunCreateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            run = start_probe_run(
                data["release"], data["model"], config=data["config"], user=request.user, shard_size=data["shard_size"]
            )
        except ProbeError as error:
            raise DRFValidationError({"detail": str(error)}) from None
        return self._detail(run, status.HTTP_201_CREATED)

    @extend_schema(parameters=[RUN_ID], responses={200: ProgressSerializer}, description="Live progress only.")
    @action(detail=True, methods=["get"])
    def progress(self, request, pk=None):
        progress = self.get_object().progress()
        return Response(progress if is_curator(request.user) else public_progress(progress))

    @extend_schema(
        parameters=[RUN_ID],
        request=None,
        responses={200: ProbeRunDetailSerializer},
        description="Cancel a queued or running run (curators only): its remaining shards are skipped.",
    )
    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        run = self.get_object()
        cancel_run(run)
        return self._detail(run)

    @extend_schema(
        parameters=[RUN_ID],
        request=None,
        responses={200: ProbeRunDetailSerializer},
        description="Resume a cancelled, failed or stalled run (curators only): finished shards are kept.",
    )
    @action(detail=True, methods=["post"])
    def resume(self, request, pk=None):
        run = self.get_object()
        try:
            resume_probe_run(run)
        except ProbeError as error:
            raise DRFValidationError({"detail": str(error)}) from None
        return self._detail(run)
