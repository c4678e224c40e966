"""OpenAPI descriptions of GitLoom's two credentials (for /v1/schema and /v1/docs)."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.ApiKeyAuthentication"
    name = "apiKey"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "An API key (`glk_...`) from the dashboard or `manage.py create_api_key`.",
        }


class DashboardSessionScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.DashboardSessionAuthentication"
    name = "dashboardSession"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "cookie",
            "name": "sessionid",
            "description": "A dashboard login; unsafe methods also need the CSRF token.",
        }
