"""A small bilingual lexicon: the concepts FAQ-style answers are made of, in Korean and English.

Word overlap cannot see that "등본을 떼면" and "발급 시", "free" and "무료", or "끈 뒤" and "끄고
… 후" say the same thing. This table maps such words to one *concept* so the claim checks
(``claims.py``) can compare an answer with its reference by meaning: a paraphrase in other
words, or an answer in English against a Korean reference.

Each row of ``CONCEPTS`` is ``concept: (Korean forms, English forms)``:

- a Korean form of one syllable matches a morpheme lemma exactly (후, 뒤, 전); a longer form
  matches a lemma or, as a substring, the text (무료, 수 있, 돈 안) — verb forms are written as
  their stem (끄, 켜) or lemma (끄다);
- a Korean form starting with ``re:`` is a regular expression searched in the text
  ("30일 안에" is ``within``, "대여소 안에" is not);
- an English form matches a word exactly, or as a prefix if it ends in ``*`` (refund* =
  refund, refunds, refunded), or a phrase (``at least``) with word boundaries, or a regular
  expression if it starts with ``re:`` ("no cancellation fee").

Polarity is not a concept: 불가/cannot map to ``possible`` and the negation is counted
separately (``NEGATION_*`` below), so "가입할 수 없습니다" and "you cannot join" carry the same
concept with the same sign. ``OPPOSITES`` pairs concepts that reverse a condition (이상/미만,
before/after, 무료/유료, 평일/주말): an answer that keeps a clause but swaps one for its opposite
contradicts it; a group of more (우편/이메일/전화/방문/온라인) works the same way.

The table is data: extend it with rows, keep one concept per meaning, and document new
opposites here. It is hashed into the offline judges' version with the rule sources.

Examples (concepts, and the clause's sign from ``claims.polarity``; free words count as a
negation, so "무료" and "돈이 들지 않" carry one sign):

    ==========================================  =================================  ====
    text                                        concepts                           sign
    ==========================================  =================================  ====
    등본을 떼면 한 통에 400원                        issue, copy_doc                    +
    정부24에서 온라인으로 발급하면 무료               online, issue, free                −
    Online issuance via Gov24 is free            online, issue, free                −
    출국한 다음에는 가입이 안 되고                    depart, after, apply               −
    you cannot reuse your last 3 passwords       possible, reuse, recent, password  −
    ==========================================  =================================  ====
"""

from __future__ import annotations

import re
from functools import lru_cache

# "Free" is said with a negation as often as without (돈이 들지 않는다, 수수료는 없다, no fee):
# so ``polarity`` counts the plain words (무료, free) as a negation too, and "무료입니다",
# "수수료는 없습니다" and "돈이 들지 않습니다" all carry the same sign.
FREE_WORDS_KO = ("무료", "공짜", "면제", "무상")
FREE_WORDS_EN = ("free", "waived")
FREE_NEGATED_KO = (
    "비용 없", "비용이 없", "비용은 없", "돈 안", "돈이 안", "수수료 없", "수수료가 없", "수수료는 없", "요금이 없", "요금은 없",
    "돈이 들지 않", "돈 들지 않", "돈은 들지 않", "비용이 들지 않", "비용은 들지 않", "비용이 발생하지 않", "부담 없", "부담이 없",
    "수수료는 받지 않", "수수료를 받지 않", "요금은 받지 않", "요금을 받지 않", "비용은 받지 않", "비용을 받지 않", "돈을 받지 않",
    "부과하지 않", "부과되지 않", "청구하지 않", "청구되지 않",
)
FREE_NEGATED_EN = (
    "no charge", "no fee", "no fees", "no cost", "without charge", "free of charge", "not charged", "no extra charge",
    "no penalty", "no fine", "not be charged", "won't be charged",
    r"re:\bno\s+(?:\w+\s+)?(?:fees?|charges?|penalt(?:y|ies)|costs?|fines?)\b",
)

# The last syllable of a span of time (30일, 1주, 한 달, 3개월, 1년, 10분, 24시간, 며칠, 기간).
_SPAN_END = r"[\d일주달월년분간칠]"

CONCEPTS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # -- modality, price, conditions ------------------------------------------------------------
    # 금지 says "not possible" as 불가 does (its negation is counted by ``NEGATION_KO``), so
    # "양도는 가능합니다" and "양도는 금지되며" are one claim with two signs
    "possible": (("가능", "수 있", "수 없", "불가", "허용", "면 됩니다", "면 돼", "면 되", "금지"), ("can", "cannot", "can't", "possible", "impossible", "able", "unable", "allowed", "permitted", "may")),
    "allow": (("허가", "금지", "허락"), ("prohibit*", "forbid*", "forbidden", "permission", "permit")),
    "required": (("필수", "해야", "반드시", "의무", "필요"), ("must", "required", "require*", "need", "needs", "mandatory", "have to", "has to", "necessary")),
    "free": (
        (*FREE_WORDS_KO, *FREE_NEGATED_KO),
        (*FREE_WORDS_EN, *FREE_NEGATED_EN),
    ),
    "paid": (("유료", "요금이 발생", "비용이 발생"), ("paid", "charged", "chargeable")),
    "fee": (("수수료", "요금", "비용", "금액", "가격", "값"), ("fee", "fees", "charge", "cost*", "price*", "rate")),
    "penalty": (("과태료", "벌금", "위약금", "연체료"), ("fine", "fines", "penalty", "penalties", "late fee")),
    "discount": (("할인", "감면", "경감"), ("discount*", "reduc*")),
    # 안에/내에 say "within" only after a span of time ("30일 안에", "기간 내에"); after a place
    # ("대여소 안에", "건물 내에") they say where, not when
    "within": (("이내", f"re:{_SPAN_END}\\s*(?:이\\s*)?(?:안에|내에)", "까지", "동안", "일간", "개월간", "년간"), ("within", "until", "no later than", "by", "for")),
    "at_least": (("이상", "최소", "적어도"), ("at least", "minimum", "or more")),
    "at_most": (("이하", "최대", "한도", "상한"), ("at most", "maximum", "up to", "or less", "limit*", "cap", "capped")),
    "less_than": (("미만",), ("less than", "under", "below", "fewer than")),
    "more_than": (("초과", "넘"), ("more than", "over", "exceed*", "above")),
    "before": (("전", "이전", "사전", "앞서", "미리"), ("before", "prior", "in advance", "ahead")),
    "after": (("후", "이후", "다음", "뒤", "지나", "지난 뒤"), ("after", "following", "afterwards", "once", "then")),
    "every": (("마다", "매", "당"), ("every", "each", "per")),
    "only": (("뿐", "오직"), ("only", "solely", "exclusively")),
    "separately": (("별도", "따로", "추가"), ("separate*", "extra", "additional*")),
    "include": (("포함",), ("include*", "included")),
    "exclude": (("제외", "불포함", "미포함", "빼고"), ("exclude*", "except*")),
    "weekday": (("평일", "주중", "근무일", "영업일"), ("weekday*", "working day*", "business day*", "monday to friday")),
    "weekend": (("주말", "토요일", "일요일", "공휴일", "휴일"), ("weekend*", "saturday*", "sunday*", "holiday*")),
    # the working days by name, so "월요일에 배송" and "delivered on Monday" share a concept
    "monday": (("월요일",), ("monday", "mondays")),
    "tuesday": (("화요일",), ("tuesday", "tuesdays")),
    "wednesday": (("수요일",), ("wednesday", "wednesdays")),
    "thursday": (("목요일",), ("thursday", "thursdays")),
    "friday": (("금요일",), ("friday", "fridays")),
    "immediately": (("즉시", "바로", "곧바로", "당장", "지체 없"), ("immediately", "right away", "at once", "promptly")),
    "again": (("다시", "재"), ("again",)),
    "recent": (("최근", "직전", "마지막"), ("recent*", "last", "previous", "latest")),
    "new": (("신규", "새로", "새"), ("new",)),
    "personal": (("개인",), ("personal", "private", "own")),
    "carefully": (("조심", "천천히", "주의", "살살"), ("careful*", "gently", "slowly")),
    # -- actions ------------------------------------------------------------------------------
    "apply": (("신청", "접수", "가입", "등록"), ("apply", "applies", "applied", "application*", "sign up", "enrol*", "enroll*", "register*", "registration", "join", "subscrib*")),
    "issue": (("발급", "떼", "발행", "뗄"), ("issue", "issued", "issuance", "issuing", "reissu*", "obtain*")),
    "submit": (("제출", "청구"), ("submit*", "file", "filed", "claim*")),
    "pay": (("납부", "결제", "지불", "내다", "송금", "납입", "입금"), ("pay", "pays", "paid", "payment*", "deposit money", "deposited")),
    "change": (("변경", "바꾸", "바꿔", "수정", "교체"), ("change*", "modif*", "updat*", "replac*")),
    "cancel": (("취소", "해지", "철회", "해약"), ("cancel*", "terminat*", "withdraw*")),
    "refund": (("환불", "환급", "돌려받", "돌려 받", "반환"), ("refund*", "reimburs*", "money back", "repay*")),
    "use": (("이용", "사용", "쓰다", "쓸"), ("use", "uses", "used", "using", "usage")),
    "reuse": (("재사용", "다시 쓰", "다시 사용"), ("reuse*", "re-use*")),
    "connect": (("연결", "접속", "꽂"), ("connect*", "plug*")),
    "report": (("신고", "알리", "통보", "보고"), ("report*", "notify*", "inform")),
    "request": (("요청", "요구", "문의", "연락"), ("request*", "ask", "contact*")),
    "receive": (("받다", "수령", "수취"), ("receiv*", "get", "gets", "collect*")),
    "send": (("보내", "발송", "전송"), ("send*", "sent")),
    "remove": (("제거", "빼내", "빼다", "꺼내", "삭제", "치우", "떼어", "벗기"), ("remov*", "take out", "pull out", "delet*", "peel*", "strip off", "take off")),
    "attach": (("부착", "붙이", "붙여"), ("attach*", "stick*", "affix*")),
    "dispose": (("배출", "내놓", "버리"), ("dispos*", "put out", "throw away", "discard*", r"re:\bput\s+(?:\w+\s+){1,2}out\b", "throw out")),
    "empty": (("비우", "비워", "비운"), ("empty", "empties", "emptied", "drain*")),
    "contents": (("내용물",), ("contents",)),
    "label": (("라벨", "상표", "스티커"), ("label*", "sticker*")),
    "crush": (("찌그러뜨", "찌그러트", "납작", "압착"), ("crush*", "flatten*", "squash*", "compress*")),
    "wash": (("씻", "헹구", "헹궈", "세척"), ("wash*", "rins*", "clean")),
    "open": (("열다", "열어", "개방"), ("open", "opens", "opening")),
    "close": (("닫다", "닫", "마감", "휴관", "휴무", "휴업", "쉬는 날"), ("close", "closes", "closed", "closing")),
    "turn_off": (("끄다", "끄", "끈", "꺼", "종료"), ("turn off", "switch off", "power off", "shut down")),
    "turn_on": (("켜다", "켜", "켠", "켭"), ("turn on", "switch on", "power on", "restart*", "reboot*")),
    "operate": (("운영", "영업", "운용"), ("operat*", "open hours", "business hours", "service hours")),
    "take_time": (("소요", "걸리", "걸립"), ("take", "takes", "took")),
    "process": (("처리",), ("process*", "handl*")),
    "approve": (("승인", "허가", "인가"), ("approv*", "authoriz*", "authoris*")),
    "lose": (("분실", "잃어버", "잃"), ("lost", "lose", "loses", "losing")),
    "lock": (("잠금", "잠그", "잠가"), ("lock*",)),
    "install": (("설치",), ("install*",)),
    "login": (("로그인",), ("log in", "login", "sign in")),
    "reset": (("초기화", "재설정"), ("reset*",)),
    "visit": (("방문", "창구", "직접"), ("visit*", "in person", "counter", "walk-in")),
    "online": (("온라인", "인터넷", "홈페이지", "누리집", "웹사이트", "앱", "모바일"), ("online", "website", "web", "internet", "app", "mobile")),
    "depart": (("출국", "출발"), ("depart*", "leav*", "travel*")),
    # -- things ---------------------------------------------------------------------------------
    "phone": (("전화", "고객센터", "콜센터", "상담센터"), ("phone", "call", "calls", "hotline", "customer center", "call center")),
    "email": (("메일", "이메일", "전자우편"), ("email*", "e-mail*")),
    "post": (("우편", "등기", "우체국"), ("post", "postal", "by mail", "mailed", "mail")),
    "password": (("비밀번호", "암호", "패스워드"), ("password*", "passcode*")),
    "account": (("계정", "아이디"), ("account*", "id")),
    "bank_account": (("계좌",), ("bank account*",)),
    "document": (("서류", "문서", "자료"), ("document*", "paperwork", "papers")),
    "copy_doc": (("등본", "증명서", "사본", "통"), ("certificate*", "copy", "copies")),
    "deadline": (("기한", "마감일", "기간"), ("deadline*", "due", "period", "time limit")),
    "date": (("날짜", "일자", "날", "일자"), ("date", "day")),
    "insurance": (("보험",), ("insur*", "policy")),
    "treatment": (("진료", "치료", "진찰"), ("treatment*", "medical", "visit to the doctor")),
    "paper": (("용지", "종이"), ("paper",)),
    "cover": (("커버", "덮개", "뚜껑", "마개"), ("cover", "lid", "panel", "cap", "caps")),
    "power": (("전원",), ("power",)),
    "adult": (("성인", "어른"), ("adult*",)),
    "child": (("어린이", "아동", "소아", "아이"), ("child*", "kid*", "minor*")),
    "youth": (("청소년", "학생"), ("youth*", "teen*", "student*")),
    "senior": (("노인", "어르신", "경로", "고령자"), ("senior*", "elderly")),
    "card": (("카드",), ("card", "cards")),
    "member": (("회원", "멤버십"), ("member*",)),
    "customer": (("고객", "이용자", "사용자"), ("customer*", "user*", "client*")),
    "loan": (("대출", "융자", "빌리", "빌려", "대여"), ("loan*", "borrow*", "lend*", "rent*")),
    "interest": (("금리", "이자", "이율"), ("interest",)),
    "security": (("보안",), ("security", "secur*")),
    "encrypt": (("암호화",), ("encrypt*",)),
    "remote": (("원격", "재택"), ("remote*", "from home")),
    "work": (("업무", "근무", "회사"), ("work", "working", "business", "company")),
    "employee": (("직원", "사원", "입사자", "임직원"), ("employee*", "staff", "hire*", "worker*")),
    "join_company": (("입사",), ("joining", "start date", "first day")),
    "delivery": (("배송", "택배", "배달"), ("deliver*", "shipping", "ship*")),
    "return": (("반품", "반납"), ("return*",)),
    "exchange": (("교환",), ("exchang*",)),
    "branch": (("지점", "지사", "영업점", "영업소", "대리점"), ("branch*", "office")),
    "resident": (("주민", "거주", "전입"), ("resident*", "residence", "move-in", "moving in")),
    "passport": (("여권",), ("passport*",)),
    "vehicle": (("자동차", "차량", "자차"), ("car", "cars", "vehicle*", "auto")),
    "accident": (("사고",), ("accident*", "crash*")),
    "emergency": (("긴급", "응급"), ("emergenc*", "urgent")),
    "year": (("연간", "매년", "연", "1년"), ("annual*", "yearly", "a year", "per year")),
    "month": (("매월", "월간", "매달", "월"), ("monthly", "a month", "per month")),
    "limit_amount": (("한도액", "최고액"), ("coverage limit",)),
    "storage": (("저장장치", "USB", "외장"), ("storage", "usb", "drive")),
    "computer": (("PC", "컴퓨터", "노트북", "랩톱"), ("pc", "computer*", "laptop*", "notebook*")),
    "printer": (("프린터", "인쇄기"), ("printer*",)),
    "jam": (("걸림", "끼임"), ("jam*", "stuck")),
    # everyday service vocabulary (orders, bookings, travel, memberships)
    "order": (("주문",), ("order", "orders", "ordered", "ordering")),
    "coupon": (("쿠폰", "할인권"), ("coupon*", "voucher*")),
    "takeout": (("포장 주문", "방문 포장", "테이크아웃"), ("pickup", "pick-up", "takeout", "take-out", "to go")),
    "reserve": (("예약",), ("reserv*", "booking*", "book", "hold", "holds")),
    "extend": (("연장", "갱신"), ("extend*", "extension*", "renew*")),
    "suspend": (("정지", "중지", "멈추", "멈춰", "일시정지"), ("suspend*", "pause*", "freeze", "hold")),
    "late": (("연체", "늦게", "늦으면", "지연"), ("late", "overdue", "delay*")),
    "airport": (("공항",), ("airport*",)),
    "baggage": (("수하물", "짐", "가방"), ("baggage", "luggage", "bag", "bags", "suitcase*")),
    "cabin": (("기내",), ("cabin", "carry-on", "on board", "onboard")),
    "checked": (("위탁",), ("checked", "check in", "check-in")),
    "carry": (("반입", "가져가", "가지고 타", "휴대"), ("carry", "carried", "bring", "take on")),
    "battery": (("배터리", "보조배터리"), ("battery", "batteries", "power bank*")),
    "same_day": (("당일", "그날", "바로 당일"), ("same day", "same-day", "on the day")),
    "next_day": (("다음 날", "다음날", "익일", "이튿날", "이튿 날", "그다음 날"), ("next day", "following day", "the day after")),
    "day_before": (("전날", "전일", "하루 전날"), ("day before", "previous day", "the eve")),
    "vaccine": (("예방접종", "접종", "백신"), ("vaccin*", "immuniz*", "shot", "shots")),
    "recognise": (("인정",), ("recogni*", "counted", "count toward*")),
    "income_deduction": (("소득공제",), ("income deduction*", "tax deduction*", "deduct*")),
    "deposit": (("보증금", "예치금", "선수금"), ("deposit", "deposits", "security deposit")),
    "admission": (("입원",), ("admit*", "admission*", "hospitali*")),
    "discharge": (("퇴원",), ("discharg*",)),
    # going into a place: "입장할 수 없습니다" answers "들어가도 돼요?"
    "enter": (("입장", "입실", "출입", "들어가", "들어오"), ("enter", "enters", "entering", "entry", "go in", "get in", "come in", "let in")),
    "settle": (("정산",), ("settle*", "settlement")),
    "defect": (("하자", "불량", "결함", "파손", "문제가 있"), ("defect*", "faulty", "damaged", "broken")),
    "mind_change": (("변심", "마음이 바뀌", "마음이 변"), ("change of mind", "changed your mind", "change your mind")),
    "sale": (("세일", "할인 상품", "할인상품"), ("sale", "sales", "on sale", "clearance")),
    "regular": (("일반", "정상가"), ("regular", "normal", "standard")),
    "same": (("같은", "동일", "똑같"), ("same", "identical")),
    # buying and proving it (warranties, returns, repairs)
    "purchase": (("구입", "구매", "산 날", "사신"), ("purchas*", "buy", "bought")),
    "receipt": (("영수증", "구매 내역", "구매내역", "거래 내역"), ("receipt*",)),
    "warranty": (("보증서", "보증 기간", "품질보증", "무상 보증", "보증"), ("warrant*", "guarantee*")),
    "confirm": (("확인",), ("confirm*", "verif*")),
    "repair": (("수리", "고치", "고쳐"), ("repair*", "fix", "fixed", "fixing")),
}

# Groups of concepts that exclude each other: an answer that keeps a clause but swaps one for
# another of its group contradicts the reference (이상 → 미만, 이하 → 이상, 출국 전 → 출국 후, 무료 → 유료,
# 평일 → 주말, 우편 → 이메일, 성인 → 어린이).
OPPOSITES: tuple[tuple[str, ...], ...] = (
    ("before", "after"),
    ("within", "after"),
    ("at_least", "less_than"),
    ("at_most", "more_than"),
    ("at_least", "at_most"),  # 8,000만 원 이상 ↔ 이하: the bound turned round
    ("more_than", "less_than"),
    ("free", "paid"),
    ("weekday", "weekend"),
    ("include", "exclude"),
    ("turn_on", "turn_off"),
    ("open", "close"),
    ("same_day", "next_day", "day_before"),  # 당일부터 ↔ 다음 날부터: days apart, no figure written
    ("online", "visit", "phone", "email", "post"),
    ("adult", "child", "youth", "senior"),
)

# Negation cues counted once per clause, besides Kiwi's negation morphemes (않다, 없다, 못,
# 안, 아니다): prefixes and nouns that deny (불가, 금지, 제외; 금식 = not eating, 금연 = not
# smoking) and English words.
NEGATION_KO = ("불가", "금지", "금식", "금연", "불포함", "제외", "미포함", "비대상", *FREE_WORDS_KO)
NEGATION_EN = re.compile(
    r"\b(?:not|never|no|cannot|can't|don't|doesn't|isn't|aren't|won't|wasn't|weren't|shouldn't|mustn't|"
    r"without|impossible|unable|prohibited|forbidden|neither|nor|none|no longer|" + "|".join(FREE_WORDS_EN) + r")\b",
    re.I,
)
# Conditional clauses: a negation inside "…하지 않으면" / "if … not" states a condition, not a
# claim, and is not counted. The condition itself runs to the next comma or semicolon ("If you do not pay, …"); the main
# clause around it keeps its negations ("No deposit is required when you are admitted").
_CONDITION_SPAN = re.compile(r"\b(?:if|unless|when|whenever)\b[^,;]*", re.I)


def without_conditions(text: str) -> str:
    """``text`` without its English condition clauses, whose negations state a condition."""
    return _CONDITION_SPAN.sub(" ", text)

_EN_WORD = re.compile(r"[a-z][a-z'-]*")


def _index() -> tuple[dict[str, str], list[tuple[str, str]], dict[str, str], list[tuple[str, str]], list[tuple[re.Pattern[str], str]]]:
    """(Korean lemma -> concept, Korean substrings, English word -> concept, English prefixes,
    English phrases and Korean patterns) built once from ``CONCEPTS``."""
    ko_lemma: dict[str, str] = {}
    ko_sub: list[tuple[str, str]] = []
    ko_re: list[tuple[re.Pattern[str], str]] = []
    en_word: dict[str, str] = {}
    en_prefix: list[tuple[str, str]] = []
    en_phrase: list[tuple[re.Pattern[str], str]] = []
    for concept, (ko, en) in CONCEPTS.items():
        for form in ko:
            if form.startswith("re:"):
                ko_re.append((re.compile(form[3:]), concept))
                continue
            ko_lemma.setdefault(form, concept)
            if len(form) >= 2:
                ko_sub.append((form, concept))
        for form in en:
            if form.startswith("re:"):
                en_phrase.append((re.compile(form[3:], re.I), concept))
            elif " " in form or "-" in form:
                en_phrase.append((re.compile(r"\b" + re.escape(form.rstrip("*")) + (r"\w*" if form.endswith("*") else r"\b"), re.I), concept))
            elif form.endswith("*"):
                en_prefix.append((form[:-1], concept))
            else:
                en_word.setdefault(form, concept)
    ko_sub.sort(key=lambda p: len(p[0]), reverse=True)
    return ko_lemma, ko_sub, en_word, en_prefix, en_phrase + ko_re


_KO_LEMMA, _KO_SUB, _EN_WORD_MAP, _EN_PREFIX, _EN_PHRASE = _index()
_OPPOSITES_OF: dict[str, frozenset[str]] = {}
for _group in OPPOSITES:
    for _concept in _group:
        _OPPOSITES_OF[_concept] = _OPPOSITES_OF.get(_concept, frozenset()) | (frozenset(_group) - {_concept})


def opposites(concept: str) -> frozenset[str]:
    """The concepts that exclude ``concept`` (its groups in ``OPPOSITES`` without it)."""
    return _OPPOSITES_OF.get(concept, frozenset())


def concept_of_lemma(lemma: str) -> str | None:
    """The concept a Korean lemma (or its stem without 다) or an English word names."""
    if lemma in _KO_LEMMA:
        return _KO_LEMMA[lemma]
    if lemma.endswith("다") and lemma[:-1] in _KO_LEMMA:
        return _KO_LEMMA[lemma[:-1]]
    word = lemma.lower()
    if word in _EN_WORD_MAP:
        return _EN_WORD_MAP[word]
    for prefix, concept in _EN_PREFIX:
        if word.startswith(prefix):
            return concept
    return None


@lru_cache(maxsize=8192)
def phrase_concepts(text: str) -> frozenset[str]:
    """Concepts named by multi-syllable Korean forms (substrings) and English phrases."""
    low = text.lower()
    found = {concept for form, concept in _KO_SUB if form.lower() in low}
    found |= {concept for pattern, concept in _EN_PHRASE if pattern.search(text)}
    return frozenset(found)


@lru_cache(maxsize=8192)
def english_concepts(text: str) -> tuple[str, ...]:
    """English words as concepts where the lexicon knows them, else the word itself."""
    out: list[str] = []
    for word in _EN_WORD.findall(text.lower()):
        concept = concept_of_lemma(word)
        if concept is not None:
            out.append(concept)
        elif len(word) >= 3 and word not in EN_STOPWORDS:
            out.append(word)
    return tuple(out)


EN_STOPWORDS = frozenset(
    "the and for you your are was were has have had this that these those with from into its it's "
    "our their they them there which who what when where how will would should could been being "
    "also any all some such than then only about via".split()
)
