"""Jobs: a namespace's recent jobs, one job's status, and reverting one.

``JobScopedApi`` resolves the ``<job_id>`` of a route once (with the access check and,
for a write that names one, the namespace check), the way ``NamespaceScopedApi``
resolves a namespace.
"""

from __future__ import annotations

from drf_spectacular.utils import (
    OpenApiExample,
    extend_schema,
)
from rest_framework.response import Response

from accounts.authentication import key_for_hash
from accounts.models import ApiKey
from gitloom.core.errors import InvalidInput
from gitloom.core.openapi import raises
from gitloom.core.serializers import StrictCharField, StrictSerializer
from memories.apis.common import PAGE_PARAMS, WRITE_ERRORS, PageFilterSerializer, filter_params
from memories.apis.examples import (
    JOB_EXAMPLE,
    REVERT_EXAMPLE,
    SKIPPED_EXAMPLE,
)
from memories.apis.serializers import (
    JobEnvelopeSerializer,
    JobPageSerializer,
    RevertSerializer,
    StrictBooleanField,
)
from memories.errors import (
    JobNotFinished,
    JobNotFound,
    JobNotRevertible,
    NothingToRevert,
    RevertConflict,
)
from memories.selectors import (
    job_get_for_account,
    job_page,
)
from memories.services import (
    job_revert,
)
from namespaces.apis import NAMESPACE_PARAM, WRITES, NamespaceScopedApi
from namespaces.errors import (
    CommitNotInHistory,
)


class JobScopedApi(NamespaceScopedApi):
    """An API view that acts on one of the caller's jobs, resolved once.

    The namespace scope narrowed to a job: before the handler runs, the ``<job_id>`` URL
    argument becomes the ``Job`` (fetched for the caller's account: another account's job
    is the same 404 as a missing one) and is handed to the handler as ``job``. A write's
    JSON body may name the job's ``namespace`` (read by the namespace scope's one
    reader); a job of another namespace is then the same 404 too, so a client scoped to
    one namespace cannot act on another's job by id.
    """

    errors = (JobNotFound,)

    def scope(self, request) -> dict:
        name = self.namespace_requested(request)  # a malformed body is 400 before the lookup
        job = job_get_for_account(account=request.auth.account, job_id=self.kwargs.pop("job_id"))
        if request.method in WRITES and name is not None and name != job.namespace.name:
            raise JobNotFound()
        return {"job": job}

    def key_lookup(self, request, key_hash: str) -> ApiKey | None:
        return key_for_hash(request, key_hash)  # the job, not a named namespace, is the scope


class JobListApi(NamespaceScopedApi):
    @extend_schema(
        operation_id="jobs_list",
        summary="Recent jobs of a namespace (paginated)",
        description="The namespace's jobs, newest first, 50 a page; pass `next_cursor` "
        "back as `cursor` for the next page.",
        parameters=[NAMESPACE_PARAM, *PAGE_PARAMS],
        responses={200: JobPageSerializer},
        examples=[
            OpenApiExample("jobs", value={"jobs": [JOB_EXAMPLE], "next_cursor": None}),
        ],
    )
    @raises(InvalidInput)
    def get(self, request, namespace):
        page = job_page(namespace=namespace, **filter_params(PageFilterSerializer, request))
        return Response(JobPageSerializer(page).data)


class JobDetailApi(JobScopedApi):
    @extend_schema(
        operation_id="job_get",
        summary="A write's status and outcome",
        description="`status` is `queued`, `running`, `done` or `failed`. A done job names "
        "its commit and the paths it created, rewrote and linked; a failed one carries "
        "`error` (for example `model_unavailable`) and wrote nothing.",
        responses={200: JobEnvelopeSerializer},
        examples=[OpenApiExample("done", value={"job": JOB_EXAMPLE})],
    )
    def get(self, request, job):
        return Response(JobEnvelopeSerializer(job).data)


class JobRevertApi(JobScopedApi):
    class InputSerializer(StrictSerializer):
        force = StrictBooleanField(
            required=False,
            default=False,
            help_text="revert the files nobody changed since and skip the others, instead "
            "of refusing with `revert_conflict`",
        )
        namespace = StrictCharField(
            required=False,
            help_text="if given, the job must belong to this namespace (else `job_not_found`)",
        )

        class Meta:
            ref_name = "JobRevert"

    @extend_schema(
        operation_id="job_revert",
        summary="Revert one job: a new commit that undoes exactly what it wrote",
        description="Reads what the job did from its commit (the diff against its parent): "
        "files it created are removed, and links to them are dropped from other memories "
        "(as forgetting does); files it rewrote get their earlier content back. If a later "
        "commit changed or removed one of them, nothing is written: `409 revert_conflict`, "
        "whose `details.conflicts` names each such file and the commits in the way "
        "(`force` reverts the rest and lists them in `skipped`). `201` with the new "
        "commit; asked again, `200` with the same commit (`already_reverted`) and nothing "
        "written. Only a `done` job with a commit can be reverted. The revert waits for "
        "the namespace's running job, if any, and lands between two jobs; retrieval stops "
        "finding the reverted content at once.",
        request=InputSerializer,
        responses={201: RevertSerializer, 200: RevertSerializer},
        examples=[
            OpenApiExample("revert", request_only=True, value={}),
            OpenApiExample("force", request_only=True, value={"force": True}),
            OpenApiExample(
                "reverted", response_only=True, status_codes=["201"], value=REVERT_EXAMPLE
            ),
            OpenApiExample(
                "reverted, one file skipped",
                response_only=True,
                status_codes=["201"],
                value={**REVERT_EXAMPLE, "restored": [], "skipped": [SKIPPED_EXAMPLE]},
            ),
            OpenApiExample(
                "reverted before",
                response_only=True,
                status_codes=["200"],
                value={**REVERT_EXAMPLE, "already_reverted": True},
            ),
        ],
    )
    @raises(
        JobNotFinished,
        NothingToRevert,
        JobNotRevertible,
        RevertConflict,
        CommitNotInHistory,
        *WRITE_ERRORS,
    )
    def post(self, request, job):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        revert = job_revert(job=job, force=data.validated_data["force"])
        return Response(RevertSerializer(revert).data, status=201 if revert.created else 200)
