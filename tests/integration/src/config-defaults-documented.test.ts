import * as fs from 'node:fs';
import * as path from 'node:path';

import ts from 'typescript';

/**
 * The `@default` a plugin's config type documents (what an editor shows on hover) is the default its
 * `plugin.json` schema applies, for every field and section of every bundled strategy. A default written
 * in prose (a prompt's text) is not compared.
 */

const root = path.join(__dirname, '..', '..', '..');

interface SchemaProperty {
  default?: unknown;
  properties?: Record<string, SchemaProperty>;
}

interface DocumentedField {
  /** The `@default` tag's text, when the field has one. */
  documented?: string;
  /** The interface the field's type names, when it is one. */
  typeName?: string;
}

/** Every interface of a plugin's config files, by name, with its fields. */
function configInterfaces(plugin: string): Map<string, Map<string, DocumentedField>> {
  const interfaces = new Map<string, Map<string, DocumentedField>>();
  const source = path.join(root, 'plugins', plugin, 'src');
  for (const file of fs.readdirSync(source, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('config.ts')) continue;
    const text = fs.readFileSync(path.join(source, file), 'utf8');
    const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    for (const statement of sourceFile.statements) {
      if (!ts.isInterfaceDeclaration(statement)) continue;
      const fields = new Map<string, DocumentedField>();
      for (const member of statement.members) {
        if (!ts.isPropertySignature(member) || !member.name) continue;
        const tag = ts.getJSDocTags(member).find((candidate) => candidate.tagName.text === 'default');
        const documented = tag ? ts.getTextOfJSDocComment(tag.comment)?.trim() : undefined;
        const typeName =
          member.type && ts.isTypeReferenceNode(member.type) ? member.type.typeName.getText(sourceFile) : undefined;
        fields.set(member.name.getText(sourceFile), {
          ...(documented !== undefined ? { documented } : {}),
          ...(typeName !== undefined ? { typeName } : {}),
        });
      }
      interfaces.set(statement.name.text, fields);
    }
  }
  return interfaces;
}

/** A `@default` tag's value (`'user'`, `null (the model's window)`, `51200 (50 KiB)`); `undefined` for prose. */
function documentedValue(text: string): { value: unknown } | undefined {
  const asJson = (candidate: string) => {
    try {
      return { value: JSON.parse(candidate.replace(/^'(.*)'$/, '"$1"')) as unknown };
    } catch {
      return undefined;
    }
  };
  return asJson(text) ?? asJson(text.split(' (')[0]!.trim());
}

function mismatches(
  interfaces: Map<string, Map<string, DocumentedField>>,
  fields: Map<string, DocumentedField>,
  schema: Record<string, SchemaProperty>,
  prefix: string,
): string[] {
  const found: string[] = [];
  for (const [name, field] of fields) {
    const property = schema[name];
    if (property === undefined) continue;
    const section = field.typeName !== undefined ? interfaces.get(field.typeName) : undefined;
    if (property.properties && section) {
      found.push(...mismatches(interfaces, section, property.properties, `${prefix}${name}.`));
      continue;
    }
    if (field.documented === undefined) continue;
    const documented = documentedValue(field.documented);
    if (documented && JSON.stringify(documented.value) !== JSON.stringify(property.default ?? null))
      found.push(`${prefix}${name}: documented ${field.documented}, schema ${JSON.stringify(property.default)}`);
  }
  return found;
}

const plugins = fs.readdirSync(path.join(root, 'plugins')).filter((name) => {
  return fs.existsSync(path.join(root, 'plugins', name, 'plugin.json'));
});

describe('documented config defaults', () => {
  it('finds every bundled strategy', () => {
    expect(plugins.length).toBeGreaterThanOrEqual(5);
  });

  it.each(plugins)('%s: every @default of its config type is the schema default', (plugin) => {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'plugins', plugin, 'plugin.json'), 'utf8')) as {
      configSchema: { properties: Record<string, SchemaProperty> };
    };
    const schema = manifest.configSchema.properties;
    const interfaces = configInterfaces(plugin);
    // The config type: the interface with the most of the schema's fields.
    const overlap = (fields: Map<string, DocumentedField>) => [...fields.keys()].filter((key) => key in schema).length;
    const config = [...interfaces.values()].sort((a, b) => overlap(b) - overlap(a))[0];
    expect(config && overlap(config)).toBeGreaterThanOrEqual(Object.keys(schema).length / 2);
    expect(mismatches(interfaces, config!, schema, '')).toEqual([]);
  });
});
