"""People in the loop: a person plays a game, or rates an episode, from a local web page.

- :mod:`playsuite.human.play`: ``playsuite human play``; the person is a policy
  (playsuite.agents.human) behind a page, played through the models' episode loop, runtime,
  sandbox and recorder, in the paced mode (a model's view) or the live mode (real time);
- :mod:`playsuite.human.events`: the live mode's key and mouse events turned into each
  slice's canonical actions;
- :mod:`playsuite.human.rate`: ``playsuite human rate``; raters answer the milestone questions
  for the blinded validation videos into the ratings CSV of ``playsuite agreement``;
- :mod:`playsuite.human.identity`: stable pseudonymous ids for players and raters;
- :mod:`playsuite.human.web`: the small standard-library HTTP server both pages run on,
  bound to 127.0.0.1 only.
"""
