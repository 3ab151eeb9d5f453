"""The page flow of importing a filled-in form, for the organiser (any unit) and a team
leader (their own unit): upload → preview (every problem by row; nothing saved) →
confirm → import. The checked file waits in the session between preview and confirmation,
so nobody picks it again; it is imported only if it is still valid then."""

from __future__ import annotations

import base64
from collections.abc import Callable
from urllib.parse import quote

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from tournaments.registration.spreadsheets.imports import ImportResult
from tournaments.registration.spreadsheets.safety import check_filename

MAX_UPLOAD_BYTES = 5 * 1024 * 1024
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
TEMPLATE = "tournaments/manage/import.html"


def xlsx_response(data: bytes, filename: str) -> HttpResponse:
    response = HttpResponse(data, content_type=XLSX)
    response["Content-Disposition"] = f"attachment; filename*=UTF-8''{quote(filename)}"
    return response


def import_flow(
    request: HttpRequest,
    *,
    session_key: str,
    run: Callable[[bytes, bool], ImportResult],
    context: dict,
    done: str,
) -> HttpResponse:
    """One request of the flow. ``run(data, dry_run)`` checks (and, not dry, imports) the
    file; ``done`` is where the page goes after the import."""
    if request.method == "GET":
        return render(request, TEMPLATE, context)
    if request.POST.get("confirm"):
        stored = request.session.get(session_key)
        if not stored:
            messages.error(request, _("请先上传并检查报名表。"))
            return redirect(request.path)
        result = run(base64.b64decode(stored), False)
        if result.problems:
            context.update(
                problems=[str(p) for p in result.problems],
                filename=request.session.get(session_key + ":name"),
            )
            return render(request, TEMPLATE, context, status=422)
        request.session.pop(session_key, None)
        messages.success(request, _("已导入%(n)s个报名。") % {"n": len(result.entries)})
        if result.left_out:
            messages.info(
                request,
                _("另有%(n)s个报名不是“已报名”状态，未导入：%(which)s")
                % {"n": len(result.left_out), "which": "；".join(map(str, result.left_out))},
            )
        return redirect(done)
    upload = request.FILES.get("file")
    problem = None
    if upload is None:
        problem = _("请选择一个 .xlsx 报名表文件。")
    elif upload.size > MAX_UPLOAD_BYTES:
        problem = _("文件太大（最大5 MB）。")
    else:
        wrong_name = check_filename(upload.name)
        problem = str(wrong_name) if wrong_name is not None else None
    if problem is not None:
        context["problems"] = [problem]
        return render(request, TEMPLATE, context, status=422)
    data = upload.read()
    result = run(data, True)
    context.update(
        filename=upload.name,
        problems=[str(p) for p in result.problems],
        forms=result.forms,
        left_out=[str(p) for p in result.left_out],
    )
    if result.problems:
        request.session.pop(session_key, None)
        return render(request, TEMPLATE, context, status=422)
    request.session[session_key] = base64.b64encode(data).decode("ascii")
    request.session[session_key + ":name"] = upload.name
    context["ready"] = True
    return render(request, TEMPLATE, context)
