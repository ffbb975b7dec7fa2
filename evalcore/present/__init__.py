"""Presentation helpers for the pages (Plotly figures, paper figures, plot text, highlighted
text, the glossary): no maths here, only the drawing of results computed below."""
