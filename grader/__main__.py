from .launch import run

run()
