# Two promises: `make run` starts the dashboard on the sample data, `make test` passes the suite.
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup run test lint bench clean

$(STAMP): requirements.txt requirements-dev.txt
	python3 -m pip install --quiet uv==0.13.8 || true
	if command -v uv >/dev/null 2>&1; then \
		uv venv --allow-existing $(VENV) && \
		uv pip install --python $(PY) --compile-bytecode -r requirements.txt -r requirements-dev.txt; \
	else \
		python3 -m venv $(VENV) && $(PY) -m pip install -r requirements.txt -r requirements-dev.txt; \
	fi
	touch $(STAMP)

setup: $(STAMP)

run: $(STAMP)
	$(PY) -m streamlit run app.py --browser.gatherUsageStats=false

test: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy planner
	$(VENV)/bin/mypy --strict ui app.py
	$(PY) -m pytest

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy planner
	$(VENV)/bin/mypy --strict ui app.py

bench: $(STAMP)
	$(PY) bench/packing.py
	$(PY) bench/recommended.py
	$(PY) bench/alibaba.py
	$(PY) bench/methods.py
	$(PY) bench/harvesting.py
	$(PY) bench/dashboard.py
	$(PY) bench/coldstart.py
	$(PY) bench/report.py

clean:
	rm -rf $(VENV)
