"""The clinical suite's formulas: SFS, CSP and CUS and the reading of an answer behind them.

``rules`` reads the suite's rule tables (``../rules/*.yaml``) into typed data, ``lexicon`` finds
their names in text, ``extract`` reads the facts an answer states, ``checks`` applies the
contraindication rules and the slot use, ``scores`` turns them into the three scores. Pure: no
I/O but the rule files, read on first use. The old names (``assay.metrics.clinical`` and
``assay.metrics.clinical_*``) re-export these modules.
"""
