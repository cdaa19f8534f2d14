"""Export an executed notebook to one self-contained HTML page that opens offline.

Code cells are hidden (outputs only), images are embedded as data URIs, and the loaders nbconvert's lab
template pulls from a CDN (require.js, MathJax, mermaid, widgets) are removed by a small template that
extends it. Text outputs (logs, tracebacks, DataFrames) are escaped by nbconvert; nothing here inserts
raw HTML from a notebook. What cells printed to stderr (progress bars, warnings) is moved into one
collapsed "Run log" section at the end of the page (`runlog.py`).
"""

from __future__ import annotations

import os
from pathlib import Path

from jinja2 import DictLoader

from cogames_lib import io
from cogames_lib.report.runlog import move_stderr_to_run_log

TEMPLATE_NAME = "cogames_offline.html.j2"
# Every block that would load a script or font from the network is emptied.
OFFLINE_TEMPLATE = """{%- extends 'lab/index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block extra_css -%}
<style>
  body { max-width: 1200px; margin: 0 auto; padding: 0 1em; }
  .cogames-back { font-family: sans-serif; margin: 1em 0; }
  .cogames-run-log { margin: 2em 0; font-family: sans-serif; }
  .cogames-run-log pre { white-space: pre-wrap; font-size: 0.85em; background: #f6f6f6; padding: 0.5em; }
</style>
{%- endblock extra_css -%}
{%- block body_header -%}
{{ super() }}
<p class="cogames-back"><a href="index.html">&larr; back to the report index</a></p>
{%- endblock body_header -%}
"""


def html_exporter():
    from nbconvert import HTMLExporter
    from traitlets.config import Config

    # Progress bars print "\r"-separated updates; coalescing the streams keeps only each bar's final state
    # on the page instead of every intermediate line.
    config = Config({"CoalesceStreamsPreprocessor": {"enabled": True}})
    return HTMLExporter(
        config=config,
        extra_loaders=[DictLoader({TEMPLATE_NAME: OFFLINE_TEMPLATE})],
        template_file=TEMPLATE_NAME,
        exclude_input=True,
        exclude_input_prompt=True,
        exclude_output_prompt=True,
        embed_images=True,
    )


def export_html(notebook_path: str | os.PathLike[str], html_path: str | os.PathLike[str], title: str) -> Path:
    """Write the HTML page of an executed notebook (atomically); returns its path."""
    import nbformat

    notebook = nbformat.read(notebook_path, as_version=4)
    notebook.metadata["title"] = title
    move_stderr_to_run_log(notebook)
    body, _resources = html_exporter().from_notebook_node(notebook)
    return io.write_text(html_path, body)
