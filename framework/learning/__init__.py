"""What the trainers share: the ``plyground train`` command, run directories, and what games hand learners.

``train_command``  ``plyground train TRAINER --game G --run DIR``
``runs``           a run directory locked while in use, and continued only with the options it began with
``expert``         expert games as positions for learning an evaluation (the Bonanza method)
``movekeys``       what a game supplies to the Bayesian move predictor: move keys and board features
"""
