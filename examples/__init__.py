"""The examples, a package so that the experiment's modules have one name each
(``examples.perplexity.data``) wherever they are imported: by each other, by the tests and by
mypy, without a search path of their own."""
