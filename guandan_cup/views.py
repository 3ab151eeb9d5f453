from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe


@require_safe
def healthz(request: HttpRequest) -> HttpResponse:
    """For the load balancer in front of several app servers: the process answers. It does
    nothing else on purpose — the benchmarks use it as the framework's floor."""
    return HttpResponse(b"ok", content_type="text/plain")
