"""reviewer: check how well language and vision-language models did their job."""

__version__ = "0.1.0"
