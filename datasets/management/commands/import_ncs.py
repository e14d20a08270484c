from datasets.formats import ncs
from datasets.management.importer import MultiLanguageImportCommand


class Command(MultiLanguageImportCommand):
    help = "Import NCS neutral sentences from DIR/<lang>/neutral/P{1,2,3}_sents.csv; every language found."
    importer = "import_ncs"
    dataset_format = ncs
    directory_help = "Folder with en/neutral/P1_sents.csv, pt/neutral/… ."
