"""English as the rules extractor reads it: words, parts of speech, lemmas, the language a text
is written in, the structure of a document and the tracker references in it.

What comes from a library and what is ours:

* parts of speech — TextBlob's ``PatternTagger`` (a Brill tagger whose lexicon of ~94,000 words
  ships inside the ``textblob`` wheel; nothing is downloaded). Used as TextBlob ships it: the
  lexicon's most frequent tag per word, suffix rules for unknown words, ``NNP`` for capitalised
  unknown words;
* lemmas and the share of a text's words that are English — ``simplemma`` (its dictionaries ship
  inside its wheel);
* the structure of a document (headings, list items, code, tables, quotations) and tracker
  references (``#123``, ``org/repo#123``, ``PROJ-123``, ``bug 123456``, links, ``@handles``) —
  ours: that is the domain, not English grammar.

Every function here is pure and bounded: it takes text and returns plain data.
"""
