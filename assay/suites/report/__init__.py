"""The report suite (seed 000): multi-agent RAG reports, six metrics, jury, grades."""
