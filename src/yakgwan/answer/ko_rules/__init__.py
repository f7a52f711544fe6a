"""The Korean answer checks: the words they decide by (:mod:`.lexicon`), the rules that use them
(:mod:`.point`, :mod:`.holding`, :mod:`yakgwan.answer.compare`), and the switch that names them
(:class:`RuleSet`, :data:`RULES`)."""

from yakgwan.answer.ko_rules.ruleset import RULES, Rule, RuleSet

__all__ = ["RULES", "Rule", "RuleSet"]
