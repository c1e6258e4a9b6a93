"""Bayesian move prediction with factor graphs (explainable move choice).

A game-independent core learns Gaussian beliefs about move keys (Urgency
model) or board features (BoardVal model) from expert games by message
passing and assumed-density filtering; a game supplies the keys and
features through a :class:`~.adapter.BayesAdapter`.  See docs/bayes.md.

Modules: ``gaussian`` (natural parameters), ``vw`` (stable v/w), ``factors``
(the four factors and the reference schedule), ``engine`` (the compiled
loop), ``urgency`` / ``boardval`` (the two models), ``training`` (ADF),
``evaluation``, ``reports``, ``priors`` (move priors for search),
``adapter`` / ``checkers_keys`` (game adapters), ``trainer`` / ``player`` /
``plugin`` (the plyground plugins).
"""
