"""The interface's words the journeys look for, in each language of the header's switch.

The helpers in ``people.py`` find buttons, links and messages by the words a person reads.
Each text here is the Chinese the page writes, with the English the same page writes once
the header's switch says English (as locale/en/LC_MESSAGES/django.po words it, typed out
here so that a changed translation is noticed). ``{name}`` marks where a name people typed
goes: ``say("已为{unit}报名", "en", unit="体育")`` is "体育 is registered for".
"""

from __future__ import annotations

CHINESE = "zh-hans"
ENGLISH = "en"
# The header's language switch: one button per language, named in that language.
SWITCH = {CHINESE: "简体中文", ENGLISH: "English"}

_ENGLISH = {
    # setting up
    "新建比赛": "New tournament",
    "创建比赛": "Create the tournament",
    "已新建比赛“{name}”（草稿）": "Created “{name}” (draft)",
    "场地": "Venue",
    "添加": "Add",
    "保存": "Save",
    "修改": "Change",
    "创建": "Create",
    "场地“{venue}”已保存。": "Venue “{venue}” saved.",
    "新建带密码的领队账号": "create a leader account with a password",
    "领队账号：{username}": "Team leader accounts: {username}",
    "开放报名": "Open registration",
    "报名中": "Registration open",
    "截止报名": "Close registration",
    "报名截止": "Registration closed",
    # registration
    "{unit} · 报名": "{unit} · Registration",
    "新增报名": "New entry",
    "提交报名": "Register",
    "已为{unit}报名": "{unit} is registered for",
    # the draw and the day
    "{name}的签号": "Lot of {name}",
    "抽签": "Draw",
    "{event}已抽签。": "{event} has been drawn.",
    "全天赛程": "Day plan",
    "排出全天赛程（先预览）": "Plan the day (preview first)",
    "排法预览（尚未保存）": "Preview (not saved yet)",
    "保存这个赛程": "Save this schedule",
    "全天赛程已保存。": "Day plan saved.",
    "没有冲突；每场都有时间、场地和裁判。": (
        "No clashes; every match has a time, a hall and a referee."
    ),
    "当天执裁": "On duty",
    # officials
    "生成二维码": "Make the QR code",
    "{referee}的登录二维码": "Login QR code for {referee}",
    "我的台": "My tables",
    "我的台：{name}": "My tables: {name}",
    "场地执裁：": "Hall duty: ",
    "（": " (",
    "；": "; ",
    "待确认": "Awaiting confirmation",
    "确认结果": "Confirm result",
    "结果已确认": "Result confirmed",
    "提交结果": "Submit result",
    "结果已提交": "Result submitted",
    # at the table
    "对家二游": "partner 2nd",
    "打A成功": "passed A",
    "比赛结束": "Match over",
    "这一台不再进行": "this table is not played on",
    "赢得第{n}局": "wins game {n}",
    "录入第{n}局": "Record game {n}",
    # the bracket and the results
    "待定": "To be decided",
    "轮空": "Bye",
    "冠军": "Champion",
    "亚军": "Runner-up",
    "季军": "Third",
    "第{rank}名": "Place {rank}",
    ("column", "第{rank}名"): "{rank}",  # results.pdf's 名次 column
    "一等奖": "First prize",
    "二等奖": "Second prize",
    "三等奖": "Third prize",
}


def say(text: str, lang: str = CHINESE, context: str = "", **names) -> str:
    """``text`` as the interface writes it in ``lang`` (where the page words it apart, in a
    ``context``), with the typed ``names`` put in."""
    if lang == ENGLISH:
        text = _ENGLISH[(context, text) if context else text]
    return text.format(**names) if names else text
