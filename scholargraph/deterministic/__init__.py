"""The deterministic engine: what judges when no chat model is configured, and what checks a
model's work when one is.

``text`` (clean text, key phrases, word lists), ``questions`` (how a question is built),
``relevance`` (topic terms, screening, direct evidence), ``extractive`` (the quoting review),
``stance`` (direction cues, agreement and contradiction), ``support`` (does a sentence rest on
its passages), ``evidence_table`` (values with units), ``credibility`` (source types and scores).
"""
