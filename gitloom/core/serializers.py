from __future__ import annotations

from django.core.validators import ProhibitNullCharactersValidator
from rest_framework import serializers


class StrictSerializer(serializers.Serializer):
    """Refuses fields it does not know, so a typo is an error, not a silent no-op."""

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            raise serializers.ValidationError({"non_field_errors": ["Expected a JSON object."]})
        unknown = sorted(set(data) - set(self.fields))
        if unknown:
            raise serializers.ValidationError({name: ["Unknown field."] for name in unknown})
        return super().to_internal_value(data)


class StrictCharField(serializers.CharField):
    """A CharField that refuses numbers and booleans instead of quietly stringifying them."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class TextField(serializers.CharField):
    """A string taken as sent (blank, NUL and all) for a domain rule to judge with its
    own code; anything but a string is refused here."""

    def __init__(self, **kwargs):
        kwargs.setdefault("allow_blank", True)
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)
        self.validators = [
            v for v in self.validators if not isinstance(v, ProhibitNullCharactersValidator)
        ]

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return data
