from agent.cli import app

app(prog_name="fa5090-search")
