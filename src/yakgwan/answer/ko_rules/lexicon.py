"""Every literal Korean word the answer checks decide by, as data; the rules that use them are in
:mod:`yakgwan.answer.ko_rules.ruleset` (by name) and the modules it names.

Each list says what it is for and where its entries come from. Entries are regular-expression
alternatives (most are plain words; a few carry ``?`` or a class, as written). The patterns at
the end of each section are built from the lists and nothing else: changing a word here changes
the rule that uses it, and no other module holds a Korean word that a check decides by (prompts
and the wording of answers excepted).
"""

from __future__ import annotations

import re


def either(words: tuple[str, ...]) -> str:
    """The alternation of ``words`` as written ("차이|합계|…"), for a pattern."""
    return "|".join(words)


# --- general Korean grammar ------------------------------------------------------------------

# particles Kiwi may leave on a noun it reads as a name ("송민지의"): the case and topic particles
PARTICLES = ("의", "은", "는", "이", "가", "을", "를", "에", "와", "과", "도", "로")
# what may follow a light verbal noun that ends its word: a particle, 시 or 후 (when, after)
LIGHT_PARTICLES = ("을", "를", "이", "가", "은", "는", "의", "에", "도", "과", "와", "로", "으로", "시", "후")
# the first syllable of a verb form made from a verbal noun (작성하면, 진행된, 실시한, 수행할, 작성해)
VERB_SYLLABLES = "하되된한할해"
# how a sentence of an answer ends (평서문: -다, 해요체: -요, or a sign): a claim as long as the
# length bound that ends otherwise was cut off
SENTENCE_ENDS = (".", "다", "요", "!", ")", "…")
# the year suffix: "2030년" is a year, "2000만원" an amount
YEAR_SUFFIX = "년"

# --- question words and question endings -----------------------------------------------------

# question words (의문사) a question starts a word with
QUESTION_WORDS = ("언제", "얼마", "누구", "누가", "어디", "무엇", "뭐", "몇", "어느", "어떤", "어떻게", "왜")
# question words that ask for a number: a date, an amount, a count
NUMBER_QUESTION_WORDS = ("언제", "얼마", "몇")
# nouns that say when or how long, not what (a question's subject is never one of them): the
# native Korean counts of days (고유어 날수 하루 … 열흘, 보름, and 며칠 asking one: 표준국어대사전),
# the deictic time nouns (시간 직시어: general grammar) and their question words
TIME_TERMS = ("하루", "이틀", "사흘", "나흘", "닷새", "엿새", "이레", "여드레", "아흐레", "열흘", "보름", "며칠", "몇일",
              "그제", "그저께", "어제", "오늘", "내일", "모레", "재작년", "작년", "올해", "내년", "지난달", "이번달", "다음달",
              "지난주", "이번주", "다음주", "지금", "요즘", "최근", "예전", "옛날", "나중", "이번", "지난번", "당시")
# the endings of a question (의문형 어미 with 이다: 인가요, 입니까…), with or without its mark
ASK_ENDINGS = ("인가요", "인지요", "일까요", "입니까", "나요", "까요", "습니까", "니까", "가요", "는지", "죠")

# --- what a question asks about --------------------------------------------------------------

# nouns that name an operation on facts, not a fact: an answer may say them though no document does
OPERATION_TERMS = ("차이", "합계", "합산", "총합", "총액", "대비", "비율", "평균", "비교", "증감")
# nouns that name the kind of description a question asks for, not a thing ("조직 구조를 설명하면?",
# "16년 역사를 요약하면?"): an answer may say them though no document does
ASPECT_TERMS = ("구조", "역사", "경쟁력", "역량", "특징", "장점", "강점", "현황", "전반")
# nouns that only name the kind of number a question asks for ("…이전한 시기는 언제", "…길이는 얼마")
NUMBER_KIND_TERMS = ("시기", "시점", "날짜", "일자", "연도", "년도", "기간", "금액", "액수", "길이", "개수", "횟수")
# words asking for something computed from several facts (a total, all of them, time passed); the
# operation words follow. 총 comes first, so "총액" asks only for 총 ("2년 총 40억원" answers "2년 계약 총액은?")
COMPUTING_WORDS = ("총", "모든", "전체", "지났", "경과")
# how a percentage is written: "…스톡옵션 비율은 얼마인가요?" is answered by "스톡옵션: 발행주식 15% 보유"
PERCENT_SIGNS = ("%", "％", "퍼센트")
# the noun a percentage states (one of the operation words)
RATIO_NOUN = "비율"
# the heads of Korean nouns that name a payment: the Sino-Korean suffixes 비(費), 금(金), 료(料),
# the native 값, and the nouns 비용, 수수료 (표준국어대사전): 입원비, 벌금, 보험료, 약값, 수리 비용
PAYMENT_HEADS = ("비용", "수수료", "비", "금", "료", "값")
# nouns whose last syllable only looks like a payment head (표준국어대사전): 療 치료·의료·진료,
# 僚 동료, 料 as a material 자료·재료·원료·연료·사료·음료, 料 in 무료·유료 (free, charged), 了
# 종료·완료·수료, 備 장비·설비·정비·준비·예비·구비·대비, 禁 감금, the savings 예금·적금, and the
# adverbs and nouns 지금·조금·방금·소금
NOT_PAYMENTS = ("치료", "의료", "진료", "동료", "자료", "재료", "원료", "연료", "사료", "음료", "무료", "유료", "종료", "완료",
                "수료", "장비", "설비", "정비", "준비", "예비", "구비", "대비", "감금", "예금", "적금", "지금", "조금", "방금", "소금")
# verbal nouns of a question asking whether something is possible, needed or allowed: the answer may say it is not
WHETHER_TERMS = ("가능", "불가능", "필요", "불필요", "허용", "허락")
# verbal nouns that only say that the noun before them is done ("리뷰 작성 시" asks about a review;
# "사진 리뷰: 1,000 마일리지" under 추가 적립 speaks of writing one without the word)
LIGHT_TERMS = ("작성", "진행", "실시", "수행")
# a person's title or role, as it follows a name ("박민수 COO", "송민지 팀장"): Korean company
# ranks (직급) and roles, and a short Latin acronym (CEO, COO, CTO)
TITLE_WORDS = ("대표(이사)?", "사장", "부?회장", "이사", "상무", "전무", "본부장", "실장", "부장", "차장", "과장", "대리", "주임", "사원",
               "팀장", "매니저", "컨설턴트", "[A-Z]{2,4}")
# what a table row of a history says when it is the current value, not that of its year
CURRENT = "현재"

# --- numbers a claim may compute -------------------------------------------------------------

# words that say a claim computes (a difference, a total, a ratio, time passed, a rise or fall):
# only then may its numbers be results of arithmetic on the cited ones
COMPUTES_WORDS = ("차이", "합계", "합산", "총합", "총액", "모두 합", "더 [가-힣]", "배", "%", "퍼센트", "증가", "감소", "지났", "경과", "늘었", "줄었")

# --- questions about two named things (answered by rule in yakgwan.answer.compare) -----------

# the particles joining two names ("A와 B", "A하고 B", "A랑 B")
CONJUNCTIONS = ("와", "과", "하고", "이랑", "랑")
# the words asking for a sum ("A와 B의 연봉 합계는?")
SUM_WORDS = ("합계", "합산", "총합", "총액", "합")
# the verbs adding B to A ("A에 B를 추가하면 총 가격은?")
ADDING_WORDS = ("추가", "더", "포함")
# the words comparing A with B as a base ("A는 B 대비 몇 % 높은가요?")
BASE_WORDS = ("대비", "보다", "에 비해")
# what dates answer: such a question is left to the model, never computed
WHEN_TERMS = ("시기", "날짜", "일자", "언제", "시점", "연도")
# the comparison asked for: the adjective after 더, its direction (+1: the larger number wins) and
# how the verdict says it
DIRECTIONS: tuple[tuple[str, int, str], ...] = (
    ("비싸|비싼", 1, "비쌉니다"), ("높", 1, "높습니다"), ("많", 1, "많습니다"), ("크|큰", 1, "큽니다"), ("길|긴", 1, "깁니다"),
    ("늦", 1, "늦습니다"), ("낮", -1, "낮습니다"), ("적", -1, "적습니다"), ("작", -1, "작습니다"), ("싸|싼", -1, "쌉니다"),
    ("짧", -1, "짧습니다"),
)
# what a comparison names without a noun: the price, by the first of these a side's sentence states
IMPLIED = {"비쌉니다": ("가격", "요금", "금액", "비용"), "쌉니다": ("가격", "요금", "금액", "비용")}
# units compared across spellings: (the unit compared in, its size)
UNITS = {"년": ("개월", 12), "개월": ("개월", 1), "주": ("일", 7), "일": ("일", 1), "억원": ("원", 10**8), "천만원": ("원", 10**7),
         "백만원": ("원", 10**6), "만원": ("원", 10**4), "천원": ("원", 10**3), "원": ("원", 1)}

# --- the patterns built from the lists ---------------------------------------------------------

PARTICLE_END = re.compile(rf"(?<=..)(?:{either(PARTICLES)})$")  # a name Kiwi read with its particle
LIGHT_END = rf"(?=$|[^가-힣]|(?:{either(LIGHT_PARTICLES)})(?:$|[^가-힣])|[{VERB_SYLLABLES}])"
ASKING = re.compile(rf"^({either(QUESTION_WORDS)})")
# a noun that asks or says when, not what: a question word, a count of days, a deictic time noun
NOT_SUBJECT = re.compile(rf"({either(QUESTION_WORDS)}|{either(TIME_TERMS)})")
NUMBER_QUESTION = re.compile(either(NUMBER_QUESTION_WORDS))
ASK_ENDING = re.compile(rf"({either(ASK_ENDINGS)})?[?？]?$")
OPERATION = re.compile(either(OPERATION_TERMS))
ASPECT = re.compile(either(ASPECT_TERMS))
NUMBER_KIND = re.compile(either(NUMBER_KIND_TERMS))
COMPUTING = re.compile(rf"{either(COMPUTING_WORDS)}|{OPERATION.pattern}")
PERCENT = re.compile(rf"\d\s*(?:{either(PERCENT_SIGNS)})")
WHETHER = re.compile(either(WHETHER_TERMS))
LIGHT = re.compile(either(LIGHT_TERMS))
TITLE = re.compile(rf"({either(TITLE_WORDS)})")
YEAR_CELL = re.compile(rf"((?:19|20)\d\d){YEAR_SUFFIX}?")
COMPUTES = re.compile(either(COMPUTES_WORDS))

_SIDES = rf"(?P<a>\S.*?)(?:{either(CONJUNCTIONS)})\s+(?P<b>\S.*?)"
# "A와 B 중 (누가|어느 것이|…) 더 …": the two sides and what is asked of them
CHOICE = re.compile(rf"^\s*(?P<a>\S.*?)(?:{either(CONJUNCTIONS)})\s+(?P<b>\S.*?)\s+중(?:에서|에)?\s+(?P<rest>\S.*)$")
# "A와 B(의) X 차이는 얼마/몇…": with 의 first, so that "부산 지사의 직원 수" keeps "부산 지사" whole
DIFFERENCES = (
    re.compile(rf"^\s*{_SIDES}의\s+(?P<rest>\S.*?)\s*차이(?:는|가|를)?\s*(?:얼마|몇)"),
    re.compile(rf"^\s*{_SIDES}\s+(?P<rest>\S.*?)\s*차이(?:는|가|를)?\s*(?:얼마|몇)"),
)
# "A와 B의 X 합계는…", "A와 B의 X을 합하면…"; "A에 B를 추가하면 총 X은?"
SUMS = (
    re.compile(rf"^\s*{_SIDES}의\s+(?P<rest>\S.*?)\s*(?:{either(SUM_WORDS)})(?:은|는|을|를|이|가|하면)?\s*(?:얼마|몇|\?|$)"),
    re.compile(rf"^\s*(?P<a>\S.*?)에\s+(?P<b>\S.*?)(?:을|를)\s+(?:{either(ADDING_WORDS)})하면\s+(?:총\s*)?(?P<rest>\S.*?)\s*(?:얼마(?:인가요|예요|입니까)?)?\s*\??\s*$"),
)
# "A X은 B 대비 몇 % 높은가요?": the last word before 은/는 names what is asked
RATIO = re.compile(rf"^\s*(?P<a>\S.*?)(?:은|는|이|가)\s+(?P<b>\S.*?)\s*(?:{either(BASE_WORDS)})\s+몇\s*(?:%|퍼센트)\s*(?:더\s*)?(?P<adj>\S+)")
WHEN = re.compile(either(WHEN_TERMS))
MORE = re.compile(r"더\s*(" + "|".join(p for p, _, _ in DIRECTIONS) + ")")
# a date is no quantity: "2024년 5월 1일", "2024-2025", "2024-05-01", a month or months ("7월", "3-5월")
DATE = re.compile(
    r"(?<![\d,])(?:19|20)\d\d\s*(?:년(?:\s*\d{1,2}\s*월(?:\s*\d{1,2}\s*일)?)?|[-./~]\s*(?:(?:19|20)\d\d|\d{1,2}\s*[-./]\s*\d{1,2}))"
    r"|(?<![\d,.])\d{1,2}(?:\s*[-~]\s*\d{1,2})?\s*월"
)
