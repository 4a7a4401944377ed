"""The write decision's pair model (written by `python bench/decision_fit.py --write` from 273 dev pairs;
do not edit by hand). Per label: feature names, a weight each, then the intercept. See policy/pairs.py.
"""

FIT: dict[str, tuple[tuple[str, ...], tuple[float, ...]]] = {
    'change': (('cos', 'frame', 'frame_gain', 'slot_share', 'slot_shared', 'chars', 'subject_differs', 'relations_differ', 'negation_flip', 'negation_differs', 'announces', 'additive', 'zh', 'values_same', 'values_swapped', 'values_one_side', 'values_jaccard', 'values_covered', 'values_none', 'identifiers_differ', 'qualifier_differs'), (-0.6943, -0.2942, 0.7223, 1.5633, -0.2773, -0.2137, 0.2799, 0.2012, 1.0954, -0.1004, 1.6944, 0.0665, 0.0951, -0.8386, 0.187, 0.4118, 0.3879, -0.8364, -0.3974, -1.6776, -0.3756, 1.2006)),
    'distinct': (('cos', 'frame', 'frame_gain', 'slot_share', 'slot_shared', 'chars', 'subject_differs', 'relations_differ', 'negation_flip', 'negation_differs', 'announces', 'additive', 'zh', 'values_same', 'values_swapped', 'values_one_side', 'values_jaccard', 'values_covered', 'values_none', 'identifiers_differ', 'qualifier_differs'), (1.9494, 0.9287, -1.8227, -3.1688, -0.1357, 4.0121, -1.361, 2.9978, 0.9943, 0.5805, 0.3394, 2.3141, -0.4495, -0.0025, 0.1934, -0.5251, -1.1265, 0.2933, -0.5337, 1.3818, 0.1251, -2.036)),
    'duplicate': (('cos', 'frame', 'frame_gain', 'slot_share', 'slot_shared', 'chars', 'subject_differs', 'relations_differ', 'negation_flip', 'negation_differs', 'announces', 'additive', 'zh', 'values_same', 'values_swapped', 'values_one_side', 'values_jaccard', 'values_covered', 'values_none', 'identifiers_differ', 'qualifier_differs'), (-1.2551, -0.6345, 1.1004, 1.6055, 0.413, -3.7984, 1.0811, -3.199, -2.0897, -0.4801, -2.0339, -2.3806, 0.3544, 0.8411, -0.3804, 0.1133, 0.7386, 0.5431, 0.931, 0.2958, 0.2504, 0.8354)),
}
MODEL = 'memctl/all-MiniLM-L6-v2-int8'  # the embedding model whose cosines the fit reads
