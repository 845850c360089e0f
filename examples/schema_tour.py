"""A tour of opal's schema parser (`make demo` until the JIT demo lands).

Parses every schema in examples/schemas.txt, prints its canonical form and
its parts, then shows what the parser reports for a broken schema.
"""

import os

import opal

HERE = os.path.dirname(os.path.abspath(__file__))


def schema_lines(path):
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                yield line


def describe(argument):
    text = f"{argument.name or '_'}: {argument.type}"
    if argument.has_default_value():
        text += f" = {argument.default_value!r}"
    flags = []
    if argument.kwarg_only:
        flags.append("keyword-only")
    if argument.alias_info is not None:
        flags.append(("writes " if argument.alias_info.is_write else "aliases ")
                     + str(argument.alias_info))
    if flags:
        text += "  [" + ", ".join(flags) + "]"
    return text


def main():
    print("== Parsed schemas (canonical form, then the parts) ==\n")
    for text in schema_lines(os.path.join(HERE, "schemas.txt")):
        schema = opal.parse_schema(text)
        overload = schema.overload_name or "(default)"
        print(schema)
        print(f"    op {schema.name}, overload {overload}")
        for argument in schema.arguments:
            print("    arg", describe(argument))
        for ret in schema.returns:
            print("    ret", describe(ret))
        print()

    print("== A broken schema ==\n")
    for text in schema_lines(os.path.join(HERE, "broken_schema.txt")):
        try:
            opal.parse_schema(text)
        except RuntimeError as error:
            print(error)


if __name__ == "__main__":
    main()
