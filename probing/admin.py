"""Admin of probing: models are edited here; runs are a read-only record with cancel and resume."""

from __future__ import annotations

from django.contrib import admin, messages
from django.utils.html import format_html

from probing.actions import ProbeError, cancel_run
from probing.models import EmbeddingModel, ProbeRun, ProbeShard
from probing.tasks import resume_probe_run


@admin.register(EmbeddingModel)
class EmbeddingModelAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "source", "queue", "active", "run_on_publish", "created_at"]
    list_filter = ["kind", "queue", "active", "run_on_publish"]
    list_editable = ["active", "run_on_publish"]
    search_fields = ["name", "source", "notes"]
    readonly_fields = ["created_at"]


class ProbeShardInline(admin.TabularInline):
    model = ProbeShard
    fields = [
        "index",
        "status",
        "compound_list",
        "texts",
        "texts_done",
        "attempts",
        "worker",
        "heartbeat_at",
        "seconds",
        "finished_at",
        "error",
    ]
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ["index"]

    @admin.display(description="Compounds")
    def compound_list(self, shard: ProbeShard) -> str:
        return ", ".join(text for _, text in shard.compounds)

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(ProbeRun)
class ProbeRunAdmin(admin.ModelAdmin):
    """Written by the workers: read-only, apart from cancelling and resuming."""

    list_display = [
        "id",
        "model",
        "release",
        "family",
        "status",
        "progress_bar",
        "texts",
        "eta",
        "created_at",
        "finished_at",
    ]
    list_filter = ["family", "status", "model", "release"]
    list_select_related = ["model", "release"]
    actions = ["cancel_runs", "resume_runs"]
    inlines = [ProbeShardInline]
    exclude = ["report"]

    @admin.display(description="Progress")
    def progress_bar(self, run: ProbeRun):
        return format_html(
            '<progress value="{}" max="{}"></progress> {}/{}',
            run.shards_done,
            run.shards_total or 1,
            run.shards_done,
            run.shards_total,
        )

    @admin.display(description="Texts (embedded / cached / total)")
    def texts(self, run: ProbeRun) -> str:
        return f"{run.texts_embedded} / {run.texts_cached} / {run.texts_total}"

    @admin.display(description="Time left")
    def eta(self, run: ProbeRun) -> str:
        return f"{run.eta_seconds:.0f} s" if run.eta_seconds and not run.is_finished else "—"

    @admin.action(description="Cancel the selected runs")
    def cancel_runs(self, request, queryset) -> None:
        cancelled = sum(cancel_run(run) for run in queryset)
        self.message_user(request, f"{cancelled} run(s) cancelled.")

    @admin.action(description="Resume the selected runs (finished shards are kept)")
    def resume_runs(self, request, queryset) -> None:
        for run in queryset:
            try:
                pending = resume_probe_run(run)
            except ProbeError as error:
                self.message_user(request, str(error), messages.WARNING)
            else:
                self.message_user(request, f"run {run.pk}: {len(pending)} shard(s) enqueued again.")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
