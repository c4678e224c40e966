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

from accounts.models import ApiKey
from accounts.selectors import api_key_for_hash
from gitloom.core.errors import InvalidName, NamespaceNotFound
from gitloom.core.openapi import raises
from gitloom.core.serializers import StrictCharField, StrictSerializer
from gitloom.core.slugs import is_slug
from namespaces.errors import NamespaceExists
from namespaces.selectors import (
    DEFAULT_NAMESPACE,
    api_key_with_namespace,
    namespace_get_for_account,
    namespace_list,
)
from namespaces.services import namespace_create, namespace_delete

NAMESPACE_PARAM = OpenApiParameter(
    "namespace", str, description="The namespace (a slug); omitted, `default`."
)


def _name_before_body(request, kwargs) -> str | None:
    """The namespace name a request gives without a body (the URL's ``<name>``, else a
    GET's or DELETE's ``namespace`` query parameter, else ``default``); None when it is in
    a body, or not a slug (the lookup refuses it)."""
    if "name" in kwargs:
        name = kwargs["name"]
    elif request.method in ("POST", "PUT", "PATCH"):
        return None
    else:
        name = request.query_params.get("namespace")
    name = DEFAULT_NAMESPACE if name in (None, "") else name
    return name if isinstance(name, str) and is_slug(name) else None


class NamespaceScopedApi(APIView):
    """An API view that acts on one of the caller's namespaces, resolved once.

    In the manner of Sentry's ``convert_args``: before the handler runs, the namespace the
    request names is fetched for the caller's account with the access check (another
    account's namespace is the same 404 as a missing one) and handed to the handler as
    its ``namespace`` argument, in place of the URL's ``name``. The name comes from the
    ``<name>`` URL argument when the route has one, else from the ``namespace`` field of
    a JSON body (POST), else from the ``namespace`` query parameter; omitted, it is
    ``default``. Handlers, services and selectors take the ``Namespace`` and never look
    it up again.
    """

    errors = (NamespaceNotFound,)

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)  # authentication comes first
        name = self._namespace_name(request)
        # DRF calls the handler with this very dict (``self.kwargs is kwargs``).
        self.kwargs["namespace"] = self._read_with_key(request, name) or (
            namespace_get_for_account(account=request.auth.account, name=name)
        )

    def key_lookup(self, request, *, key_hash: str) -> ApiKey | None:
        """The API key and the namespace the request names, in one statement
        (``api_key_with_namespace``) when the name is known before the body: one round
        trip fewer on every namespace-scoped GET. Called by ``ApiKeyAuthentication``; a
        key that is refused is refused exactly as without it."""
        name = _name_before_body(request, self.kwargs)
        if name is None:
            return api_key_for_hash(key_hash=key_hash)
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
        if read_name != (DEFAULT_NAMESPACE if name in (None, "") else name):
            return None
        if namespace is None:
            raise NamespaceNotFound()
        return namespace

    def _namespace_name(self, request) -> str | None:
        if "name" in self.kwargs:
            return self.kwargs.pop("name")
        if request.method in ("POST", "PUT", "PATCH") and self.parser_classes:
            data = request.data
            if not isinstance(data, dict):
                return None  # the input serializer says what is wrong with the body
            try:
                return StrictCharField(allow_null=True).run_validation(data.get("namespace"))
            except serializers.ValidationError as exc:
                raise serializers.ValidationError({"namespace": exc.detail}) from None
        return request.query_params.get("namespace")


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
