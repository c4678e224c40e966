"""The declared hook by which an API view reads the caller's key itself.

Its own module, not ``accounts.authentication``: DRF's ``APIView`` reads the
authentication classes when it is imported, so the module that defines them cannot
import it.
"""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.views import APIView

from accounts.authentication import ApiKeyAuthentication, key_for_hash
from accounts.models import ApiKey


class KeyLookupApi(APIView):
    """An API view that reads the caller's API key itself (:meth:`key_lookup`), so it
    can read what the request needs in the same statement (``NamespaceScopedApi``
    reads the key with the namespace the request names). The view hands the method to
    its ``ApiKeyAuthentication`` when DRF builds the request's authenticators: a
    declared hook, not an attribute the authentication looks for on the view."""

    def key_lookup(self, request: Request, key_hash: str) -> ApiKey | None:
        return key_for_hash(request, key_hash)

    def get_authenticators(self):
        return [
            auth(self.key_lookup) if issubclass(auth, ApiKeyAuthentication) else auth()
            for auth in self.authentication_classes
        ]
