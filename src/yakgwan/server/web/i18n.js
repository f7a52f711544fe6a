// Korean by default, English on the toggle; the choice is remembered in this browser.
const STRINGS = {
  ko: {
    "nav.appeal": "이의신청", "nav.ask": "질문하기", "nav.workbench": "워크벤치", "key.label": "API 키",
    "footer": "모든 답변과 분석은 업로드한 문서의 조항만 근거로 합니다.",
    "policy.title": "1. 약관", "policy.existing": "등록된 약관", "policy.none": "(없음)", "policy.upload": "약관 파일 올리기 (PDF)",
    "policy.name": "컬렉션 이름", "policy.go": "약관 등록", "notice.title": "2. 부지급(거절) 통지서", "notice.file": "통지서 파일 (PDF·텍스트·사진)",
    "notice.analysis": "분석 방식", "notice.go": "분석 시작", "analysis.auto": "자동 (LLM이 있으면 LLM)", "analysis.rules": "규칙", "analysis.llm": "LLM",
    "result.title": "3. 분석 결과", "result.band": "성공 가능성", "result.issues": "쟁점", "result.gaps": "부족한 점", "result.actions": "권고 조치",
    "result.documents": "수집할 서류", "result.evidence": "증거 자료", "result.download": "증거 자료집 내려받기", "result.requirement": "요건",
    "result.shown": "통지서 내용", "result.to_close": "보완 방법", "result.cited": "회사가 인용한 조항", "result.found": "약관에서 찾음",
    "result.findings": "안내문과 약관 원문 대조", "result.notice_says": "안내문", "result.policy_says": "약관 원문", "result.diff": "대조 (빨강: 원문에만, 초록: 안내문에만)",
    "result.moved": "밴드", "result.stated": "참고",
    "finding.part_missing": "없는 항·호 인용", "finding.article_missing": "없는 조 인용", "finding.other_yakgwan": "다른 특약의 조항",
    "finding.claimed_exclusion": "청구 특약의 면책 조항", "finding.name_unresolved": "특정되지 않는 약관", "finding.proviso_not_addressed": "다루지 않은 단서",
    "finding.general_exclusion_on_own_list": "보통약관 면책의 적용", "finding.quote_differs": "원문과 다른 인용", "finding.threshold_misstated": "약관과 다른 수치 기준",
    "finding.arithmetic_fails": "맞지 않는 수치 계산", "finding.arithmetic_holds": "맞는 수치 계산",
    "finding.definition_read_narrowly": "정의보다 좁게 읽은 용어", "finding.full_denial_despite_reduction": "삭감 지급 대신 전액 거절",
    "finding.ambiguity_read_against_policyholder": "불리하게 좁혀 읽은 불명확한 말",
    "result.checks": "읽기 검토 (정의·삭감 지급·해석)", "check.definition": "용어 정의 대조", "check.proportional": "삭감·비례 지급 규정",
    "check.ambiguity": "불명확한 말과 약관의 해석", "check.status.found": "문제 있음", "check.status.not_found": "문제 없음",
    "check.status.not_assessed": "판단하지 않음", "check.status.not_applicable": "해당 없음",
    "result.notfound": "약관에서 찾지 못함", "result.by_llm": "(LLM 작성)", "result.denial": "통지서", "result.notes": "참고",
    "ask.collection": "문서 컬렉션", "ask.question": "질문", "ask.go": "질문하기", "ask.placeholder": "예: 음주운전 사고도 벌금을 보상하나요?",
    "ask.refused": "제공된 문서에는 이 질문에 대한 내용이 없습니다.", "ask.partial": "문서가 일부만 답합니다.", "ask.citations": "근거",
    "ask.working": "검색하고 답하는 중…", "ask.stage.retrieving": "검색하는 중…", "ask.stage.retrieved": "근거 문단 {passages}개를 찾았습니다",
    "ask.stage.answering": "{by}가 답하는 중…", "ask.stage.checked": "인용 {citations}개를 확인했습니다", "ask.nocollection": "먼저 이의신청 화면에서 문서를 올리거나 컬렉션을 만드세요.",
    "wb.dataset": "평가 데이터", "wb.pipelines": "파이프라인", "wb.k": "k", "wb.limit": "질문 수 제한", "wb.go": "평가 실행",
    "wb.results": "결과", "wb.metric": "지표", "wb.overall": "전체", "wb.bycat": "유형별", "wb.latency": "단계별 지연 (ms/질문)",
    "wb.map": "청크 임베딩 지도", "wb.report": "전체 보고서 (HTML)", "wb.llm": "LLM 필요", "wb.pipeline": "파이프라인",
    "wb.calls": "LLM 호출", "wb.recorded": "질문당 LLM ms (기록된 시간)", "wb.untimed": "건 시간 기록 없음", "wb.source": "출처", "progress.queued": "대기 중", "progress.done": "완료",
    "clause.page": "쪽", "clause.doc": "문서", "error": "오류",
  },
  en: {
    "nav.appeal": "Appeal", "nav.ask": "Ask", "nav.workbench": "Workbench", "key.label": "API key",
    "footer": "Every answer and analysis rests only on clauses of the documents you uploaded.",
    "policy.title": "1. Policy", "policy.existing": "Registered policies", "policy.none": "(none)", "policy.upload": "Upload a policy (PDF)",
    "policy.name": "Collection name", "policy.go": "Register policy", "notice.title": "2. Denial notice", "notice.file": "Notice file (PDF, text or photo)",
    "notice.analysis": "Analysis", "notice.go": "Analyse", "analysis.auto": "Auto (LLM when configured)", "analysis.rules": "Rules", "analysis.llm": "LLM",
    "result.title": "3. Analysis", "result.band": "Chance of success", "result.issues": "Issues", "result.gaps": "Gaps", "result.actions": "Recommended actions",
    "result.documents": "Documents to collect", "result.evidence": "Evidence", "result.download": "Download the evidence pack", "result.requirement": "Requirement",
    "result.shown": "What the notice shows", "result.to_close": "How to close it", "result.cited": "Clauses the insurer cited", "result.found": "found in the policy",
    "result.findings": "The notice against the policy", "result.notice_says": "Notice", "result.policy_says": "Policy", "result.diff": "Difference (red: only in the policy, green: only in the notice)",
    "result.moved": "band", "result.stated": "stated only",
    "finding.part_missing": "cites a 항/호 that does not exist", "finding.article_missing": "cites an article that does not exist", "finding.other_yakgwan": "another rider's clause",
    "finding.claimed_exclusion": "the claimed rider's own exclusion", "finding.name_unresolved": "a policy name that fits none", "finding.proviso_not_addressed": "a proviso not addressed",
    "finding.general_exclusion_on_own_list": "a general exclusion on a rider with its own list", "finding.quote_differs": "a quote that differs from the policy", "finding.threshold_misstated": "a threshold stated wrong",
    "finding.arithmetic_fails": "figures that do not bear the denial out", "finding.arithmetic_holds": "figures that bear the denial out",
    "finding.definition_read_narrowly": "a term read more narrowly than its definition", "finding.full_denial_despite_reduction": "a full denial where the policy cuts the payment",
    "finding.ambiguity_read_against_policyholder": "an open word read against the policyholder",
    "result.checks": "Reading checks (definitions, reduced payment, interpretation)", "check.definition": "definition", "check.proportional": "reduced or proportional payment",
    "check.ambiguity": "open word and the interpretation article", "check.status.found": "issue found", "check.status.not_found": "no issue",
    "check.status.not_assessed": "not assessed", "check.status.not_applicable": "not applicable",
    "result.notfound": "not found in the policy", "result.by_llm": "(written by the LLM)", "result.denial": "Notice", "result.notes": "Notes",
    "ask.collection": "Collection", "ask.question": "Question", "ask.go": "Ask", "ask.placeholder": "e.g. Is a fine covered after drink-driving?",
    "ask.refused": "The documents provided do not contain this.", "ask.partial": "The documents answer only in part.", "ask.citations": "Sources",
    "ask.working": "Searching and answering…", "ask.stage.retrieving": "Searching…", "ask.stage.retrieved": "Found {passages} passages",
    "ask.stage.answering": "{by} is answering…", "ask.stage.checked": "Checked {citations} citations", "ask.nocollection": "Upload documents or create a collection on the Appeal page first.",
    "wb.dataset": "Dataset", "wb.pipelines": "Pipelines", "wb.k": "k", "wb.limit": "Question limit", "wb.go": "Run evaluation",
    "wb.results": "Results", "wb.metric": "Metric", "wb.overall": "Overall", "wb.bycat": "By category", "wb.latency": "Latency per stage (ms/question)",
    "wb.map": "Map of chunk embeddings", "wb.report": "Full report (HTML)", "wb.llm": "needs an LLM", "wb.pipeline": "Pipeline",
    "wb.calls": "LLM calls", "wb.recorded": "LLM ms per question (as recorded)", "wb.untimed": "untimed", "wb.source": "Source", "progress.queued": "queued", "progress.done": "done",
    "clause.page": "page", "clause.doc": "Document", "error": "Error",
  },
};

let lang = localStorage.getItem("yakgwan.lang") === "en" ? "en" : "ko";

export function t(key) {
  return (STRINGS[lang] && STRINGS[lang][key]) || STRINGS.ko[key] || key;
}

export function currentLang() { return lang; }

export function applyLang(root = document) {
  document.documentElement.lang = lang;
  root.querySelectorAll("[data-i18n]").forEach((el) => { el.textContent = t(el.dataset.i18n); });
  root.querySelectorAll("[data-i18n-placeholder]").forEach((el) => { el.placeholder = t(el.dataset.i18nPlaceholder); });
  const btn = document.getElementById("lang");
  if (btn) btn.textContent = lang === "ko" ? "EN" : "한국어";
}

export function toggleLang() {
  lang = lang === "ko" ? "en" : "ko";
  localStorage.setItem("yakgwan.lang", lang);
  applyLang();
}
