from rulesqa.cli import app

app(prog_name="rulesqa")
