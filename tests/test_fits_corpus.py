"""test_fits_corpus.py - every case of manifest-fits.json reads back as astropy/CFITSIO did."""
from corpus_util import check_manifest, report

failures = []
report(failures, check_manifest("manifest-fits.json", failures))
