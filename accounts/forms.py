from django import forms

from gitloom.slugs import is_slug


class SignupForm(forms.Form):
    account_id = forms.CharField(
        label="Account id",
        max_length=64,
        help_text="1-64 characters: lowercase letters a-z, digits and '-'. It cannot change.",
    )
    username = forms.CharField(max_length=150)
    email = forms.EmailField(required=False)
    password = forms.CharField(widget=forms.PasswordInput, min_length=8)

    def clean_account_id(self) -> str:
        value = self.cleaned_data["account_id"]
        if not is_slug(value):
            raise forms.ValidationError(
                "Use only lowercase letters a-z, digits and '-' (1-64 characters)."
            )
        return value
