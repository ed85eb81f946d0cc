"""Screening: deciding which records a review rests on.

``relevance`` scores every record against the question's concepts and the eligibility criteria
without labels (the zero-shot score the review's screening uses and ``bench/screening.py``
measures); ``session`` ranks a library for a person, learns from their include/exclude labels
and says when to stop (``scholargraph screen``).
"""
