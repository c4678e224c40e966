from __future__ import annotations

from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.key_lookup import KeyLookupApi
from accounts.models import ApiKey
from gitloom.core.errors import InvalidInput, InvalidName, NamespaceNotFound
from gitloom.core.openapi import raises
from gitloom.core.serializers import StrictCharField, StrictSerializer
from gitloom.core.slugs import is_slug
from namespaces.errors import NamespaceExists
from namespaces.selectors import (
    api_key_with_namespace,
    namespace_get_for_account,
    namespace_list,
    namespace_name,
)
from namespaces.services import namespace_create, namespace_delete

NAMESPACE_PARAM = OpenApiParameter(
    "namespace", str, description="The namespace (a slug); omitted, `default`."
)


WRITES = ("POST", "PUT", "PATCH")


def namespace_requested(
    request, kwargs, *, body: bool, query_too: bool = False, read_body: bool = True
) -> str | None:
    """The one reader of the namespace name a request gives (None when it gives none).

    The route's ``<name>`` when it has one; else, on a write with a JSON body (``body``),
    that body's ``namespace`` field (a string or null, else 400 on ``namespace``) — with
    ``query_too`` the ``namespace`` query parameter is taken as well and must agree; else
    the ``namespace`` query parameter. ``read_body=False`` (before the body is parsed:
    authentication) gives None for a name that would come from a body. Omitted means
    ``default``: the selectors' ``namespace_name`` says so, in one place.
    """
    if "name" in kwargs:
        return kwargs["name"]
    query = request.query_params.get("namespace")
    if not (body and request.method in WRITES):
        return query
    if not read_body:
        return None
    data = request.data
    if not isinstance(data, dict):
        return None  # the input serializer says what is wrong with the body
    try:
        named = StrictCharField(allow_null=True).run_validation(data.get("namespace"))
    except serializers.ValidationError as exc:
        raise serializers.ValidationError({"namespace": exc.detail}) from None
    if not query_too:
        return named
    if named is not None and query is not None and named != query:
        raise InvalidInput("The namespace is given twice, differently (body and query).")
    return named if named is not None else query


class NamespaceScopedApi(KeyLookupApi):
    """An API view that acts on one of the caller's namespaces, resolved once.

    In the manner of Sentry's ``convert_args``: before the handler runs, the namespace the
    request names (:func:`namespace_requested`) is fetched for the caller's account with
    the access check (another account's namespace is the same 404 as a missing one:
    ``namespace_get_for_account``, the resolver the dashboard's pages use too) and handed
    to the handler as its ``namespace`` argument, in place of the URL's ``name``.
    Handlers, services and selectors take the ``Namespace`` and never look it up again.
    A view whose scope is narrower (a job) overrides :meth:`scope`.
    """

    errors = (NamespaceNotFound,)
    # A purge takes the name from its body or its query string (memories.apis.purges).
    namespace_in_query_too = False

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)  # authentication comes first
        # DRF calls the handler with this very dict (``self.kwargs is kwargs``).
        self.kwargs.update(self.scope(request))

    def scope(self, request) -> dict:
        """The handler's scope arguments: here ``namespace``."""
        name = self.namespace_requested(request)
        self.kwargs.pop("name", None)
        namespace = self._read_with_key(request, name) or (
            namespace_get_for_account(account=request.auth.account, name=name)
        )
        return {"namespace": namespace}

    def namespace_requested(self, request, *, read_body: bool = True) -> str | None:
        return namespace_requested(
            request,
            self.kwargs,
            body=bool(self.parser_classes),
            query_too=self.namespace_in_query_too,
            read_body=read_body,
        )

    def key_lookup(self, request, key_hash: str) -> ApiKey | None:
        """The API key and the namespace the request names, in one statement
        (``api_key_with_namespace``) when the name is known before the body: one round
        trip fewer on every namespace-scoped GET. A key that is refused is refused
        exactly as without it."""
        if request.method in WRITES and "name" not in self.kwargs:
            return super().key_lookup(request, key_hash)  # the name may be in the body
        name = namespace_name(self.namespace_requested(request, read_body=False))
        if not is_slug(name):
            return super().key_lookup(request, key_hash)  # the resolver's 404 follows
        found = api_key_with_namespace(key_hash=key_hash, name=name)
        if found is None:
            return None
        key, namespace = found
        request.namespace_read = (key.pk, name, namespace)
        return key

    @staticmethod
    def _read_with_key(request, name: str | None):
        """The namespace the key's statement read, when it read this one."""
        read = getattr(request, "namespace_read", None)
        key = getattr(request.auth, "api_key", None)
        if read is None or key is None or read[0] != key.pk:
            return None
        key_pk, read_name, namespace = read
        if read_name != namespace_name(name):
            return None
        if namespace is None:
            raise NamespaceNotFound()
        return namespace


class NamespaceOutputSerializer(serializers.Serializer):
    class Meta:
        ref_name = "Namespace"

    name = serializers.CharField()
    created = serializers.DateTimeField()
    head_commit = serializers.CharField(
        help_text="the repository's head: the commit of the last write, or before any the "
        "empty root commit the namespace was created with"
    )
    last_write = serializers.DateTimeField(
        allow_null=True, help_text="when the last write landed; null before one"
    )


class NamespaceListOutputSerializer(serializers.Serializer):
    namespaces = NamespaceOutputSerializer(many=True)

    class Meta:
        ref_name = "NamespaceList"


NAMESPACE_EXAMPLE = {
    "name": "user-8213",
    "created": "2026-07-31T09:00:00Z",
    "head_commit": "9b1e6f3c2a0d4e5f8a7b6c5d4e3f2a1b0c9d8e7f",
    "last_write": "2026-07-31T09:12:03Z",
}


# The schema shows the slug's length; the rule itself (and its one code, `invalid_name`,
# for "" and "x" * 65 as for "UPPER") is validate_slug's, in namespace_create.
@extend_schema_field({"type": "string", "minLength": 1, "maxLength": 64})
class NameField(serializers.Field):
    default_error_messages = {"invalid": "Not a valid string."}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return data

    def to_representation(self, value):
        return value


class NamespaceListCreateApi(APIView):
    class InputSerializer(StrictSerializer):
        name = NameField()

        class Meta:
            ref_name = "NamespaceCreate"

    @extend_schema(
        operation_id="namespaces_list",
        summary="List namespaces",
        description="Every namespace of the calling account, by name.",
        responses={200: NamespaceListOutputSerializer},
        examples=[
            OpenApiExample("namespaces", value={"namespaces": [NAMESPACE_EXAMPLE]}),
        ],
    )
    def get(self, request):
        namespaces = namespace_list(account=request.auth.account)
        return Response(NamespaceListOutputSerializer({"namespaces": namespaces}).data)

    @extend_schema(
        operation_id="namespaces_create",
        summary="Create a namespace",
        description="A namespace is one memory (typically one per end user of the "
        "application): its own git repository, index rows and vectors. Names are slugs "
        "(`a-z`, `0-9`, `-`, 1-64 characters) and unique within the account. Reads and "
        "writes never create one implicitly.",
        request=InputSerializer,
        responses={201: NamespaceOutputSerializer},
        examples=[
            OpenApiExample("create", value={"name": "user-8213"}, request_only=True),
            OpenApiExample(
                "created",
                value={
                    **NAMESPACE_EXAMPLE,
                    "head_commit": "e3f1a2b4c5d6e7f8091a2b3c4d5e6f708192a3b4",
                    "last_write": None,
                },
                response_only=True,
                status_codes=["201"],
            ),
        ],
    )
    @raises(InvalidName, NamespaceExists)
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        namespace = namespace_create(account=request.auth.account, **data.validated_data)
        return Response(NamespaceOutputSerializer(namespace).data, status=201)


class NamespaceDetailApi(NamespaceScopedApi):
    @extend_schema(
        operation_id="namespace_get",
        summary="Get a namespace",
        description="One namespace of the calling account; another account's is a 404 "
        "exactly like a missing one.",
        responses={200: NamespaceOutputSerializer},
        examples=[OpenApiExample("namespace", value=NAMESPACE_EXAMPLE)],
    )
    def get(self, request, namespace):
        return Response(NamespaceOutputSerializer(namespace).data)

    @extend_schema(
        operation_id="namespaces_destroy",
        summary="Delete a namespace and all its memories",
        description="Removes the namespace's repository, index rows and vectors. The name "
        "can be used again and starts empty.",
        responses={204: None},
    )
    def delete(self, request, namespace):
        namespace_delete(namespace=namespace)
        return Response(status=204)
