"""The fitted relevance models (written by `python bench/calibrate.py --write`; do not edit by hand).

Key: "model family,...,keyword|language|shape" ("*": any); value: (feature names, a weight per
feature and then the intercept). See policy/relevance.py for the features.
"""

FIT: dict[str, tuple[tuple[str, ...], tuple[float, ...]]] = {
    'keyword|*|*': (('coverage',), (6.072, -2.077)),
    'hashing,keyword|*|*': (('coverage', 'cos:hashing'), (4.39, 7.543, -3.102)),
    'memctl/all-MiniLM-L6-v2-int8,keyword|*|*': (('coverage', 'cos:memctl/all-MiniLM-L6-v2-int8'), (3.586, 7.324, -3.873)),
    'memctl/all-MiniLM-L6-v2-int8,multilingual-e5-small-q4,keyword|*|*': (('coverage', 'cos:memctl/all-MiniLM-L6-v2-int8', 'cos:multilingual-e5-small-q4'), (3.543, 6.997, 2.216, -5.521)),
    'multilingual-e5-small-q4,keyword|*|*': (('coverage', 'cos:multilingual-e5-small-q4'), (4.943, 7.579, -7.621)),
    'hashing|*|*': (('cos:hashing',), (12.837, -2.619)),
    'memctl/all-MiniLM-L6-v2-int8|*|*': (('cos:memctl/all-MiniLM-L6-v2-int8',), (10.022, -3.623)),
    'memctl/all-MiniLM-L6-v2-int8,multilingual-e5-small-q4|*|*': (('cos:memctl/all-MiniLM-L6-v2-int8', 'cos:multilingual-e5-small-q4'), (9.504, 3.223, -6.017)),
    'multilingual-e5-small-q4|*|*': (('cos:multilingual-e5-small-q4',), (14.41, -11.583)),
}
