from datasets.formats import nctti
from datasets.management.importer import MultiLanguageImportCommand


class Command(MultiLanguageImportCommand):
    help = "Import NCTTI (data_<lang>.tsv + sentids_<lang>.csv) from DIR; every language found."
    importer = "import_nctti"
    dataset_format = nctti
    directory_help = "Folder with data_en.tsv, sentids_en.csv, data_pt.tsv …"
