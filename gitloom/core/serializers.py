from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured
from django.core.validators import ProhibitNullCharactersValidator
from rest_framework import serializers
from rest_framework.fields import empty


class StrictSerializer(serializers.Serializer):
    """Refuses fields it does not know, so a typo is an error, not a silent no-op."""

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            raise serializers.ValidationError({"non_field_errors": ["Expected a JSON object."]})
        unknown = sorted(set(data) - set(self.fields))
        if unknown:
            raise serializers.ValidationError({name: ["Unknown field."] for name in unknown})
        return super().to_internal_value(data)


# Fields built and bound once per serializer class, shared by every instance (and
# thread), for a hot endpoint's serializers. DRF deep-copies every declared field into
# each instance: 0.28 ms of the 0.38 ms ``/v1/retrieve``'s parameters took to
# validate, and a third of ``/v1/whoami``'s time in Django. Validating and
# representing only read the fields, so sharing them is safe for a serializer that is
# given data or an instance alone (no context, no ``partial``), whose method fields
# use nothing but their argument; the defaults it hands out are shared too, so a
# mutable one (a list: use ``list`` or a tuple) is refused.
# (Comments, not docstrings: drf-spectacular gives a serializer's schema component
# the first docstring of its classes.)
class SharedFields:
    @property
    def fields(self):
        cls = type(self)
        fields = _shared_fields.get(cls)
        if fields is None:
            # Bound to an instance of their own, which holds no request's data.
            fields = super(SharedFields, cls()).fields
            for name, field in fields.items():
                if field.default is not empty and isinstance(field.default, (list, dict, set)):
                    raise ImproperlyConfigured(
                        f"{cls.__qualname__}.{name}: a shared field's default must not be "
                        "mutable (every request would get the same object)."
                    )
            _shared_fields[cls] = fields
        return fields


class SharedFieldsSerializer(SharedFields, StrictSerializer):
    """A filter serializer for a hot endpoint's query parameters (``SharedFields``)."""


# An output serializer for a hot endpoint's answer (``SharedFields``).
class SharedOutputSerializer(SharedFields, serializers.Serializer):
    pass


_shared_fields: dict[type, serializers.BindingDict] = {}


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
