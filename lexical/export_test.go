package lexical

// Test helpers exported to package lexical_test, whose files may import
// lexical/snowball (which imports lexical) without an import cycle.
var (
	BenchQueries                 = benchQueries
	BenchRecords                 = benchRecords
	CheckMatcherMatchesReference = checkMatcherMatchesReference
)

// productRecord is a [Record] with the fields of a catalog item,
// named as in [ProductFields]; each tag is one "tags" field.
type productRecord struct {
	Name         string   // field "name"
	Description  string   // field "description"
	Category     string   // field "category"
	Manufacturer string   // field "manufacturer"
	Tags         []string // one "tags" field per tag
}

// NumFields returns 4 plus the number of tags.
func (r productRecord) NumFields() int { return 4 + len(r.Tags) }

// Field returns name, description, category, manufacturer and then one
// field per tag; an index out of range yields the zero Field.
func (r productRecord) Field(i int) Field {
	switch i {
	case 0:
		return Field{Name: FieldName, Text: r.Name}
	case 1:
		return Field{Name: FieldDescription, Text: r.Description}
	case 2:
		return Field{Name: FieldCategory, Text: r.Category}
	case 3:
		return Field{Name: FieldManufacturer, Text: r.Manufacturer}
	}
	if i -= 4; i >= 0 && i < len(r.Tags) {
		return Field{Name: FieldTags, Text: r.Tags[i]}
	}
	return Field{}
}
