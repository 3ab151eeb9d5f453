from django.conf import settings
from django.middleware.locale import LocaleMiddleware
from django.utils import translation


class ChineseFirstLocaleMiddleware(LocaleMiddleware):
    """Chinese unless the visitor chose another language with the switcher.

    Django's LocaleMiddleware also follows the browser's Accept-Language; a union hall's
    phones and projector often run English system settings, yet the event is Chinese. Only
    the language cookie set by the switcher (``/i18n/setlang/``) changes the language.
    """

    def process_request(self, request):
        chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
        supported = dict(settings.LANGUAGES)
        language = chosen if chosen in supported else settings.LANGUAGE_CODE
        translation.activate(language)
        request.LANGUAGE_CODE = translation.get_language()

    def process_response(self, request, response):
        response = super().process_response(request, response)
        # Leave the thread as we found it: code that runs after this request in the same
        # thread (a test, a management command) should not inherit the visitor's language.
        translation.deactivate()
        return response
