"""What only recorded runs need: the catalog as earlier agents read it, the first agent (`--strategy
ladder`), and the settings a recording made before a setting existed ran with.

The current agent (agent.strategies, agent.levers, agent.policy.CURRENT) reads without this room;
a replay of a recording under results/ reaches into it, so that the recording decides as it did.
"""
