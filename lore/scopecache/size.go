package scopecache

import (
	"reflect"
	"time"

	"loregate/lore"
)

// snapshotBytes estimates the heap bytes of snap: struct sizes plus every
// string, slice, map and pointer reachable from it, found by reflection so
// fields added to lore types later are counted too. Map entries are
// approximated (key and value sizes plus 16 bytes of bucket overhead).
func snapshotBytes(snap *lore.Snapshot) int64 {
	return int64(reflect.TypeOf(*snap).Size()) + valueBytes(reflect.ValueOf(snap).Elem(), 0)
}

// valueBytes returns the bytes v refers to outside its own inline size.
func valueBytes(v reflect.Value, depth int) int64 {
	if depth > 16 {
		return 0
	}
	switch v.Kind() {
	case reflect.String:
		return int64(v.Len())
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return 0
		}
		e := v.Elem()
		n := valueBytes(e, depth+1)
		if v.Kind() == reflect.Pointer {
			n += int64(e.Type().Size())
		} else if e.Kind() != reflect.Pointer {
			n += int64(e.Type().Size())
		}
		return n
	case reflect.Slice:
		if v.IsNil() {
			return 0
		}
		n := int64(v.Cap()) * int64(v.Type().Elem().Size())
		for i := range v.Len() {
			n += valueBytes(v.Index(i), depth+1)
		}
		return n
	case reflect.Array:
		var n int64
		for i := range v.Len() {
			n += valueBytes(v.Index(i), depth+1)
		}
		return n
	case reflect.Map:
		if v.IsNil() {
			return 0
		}
		n := int64(48)
		per := int64(v.Type().Key().Size()+v.Type().Elem().Size()) + 16
		it := v.MapRange()
		for it.Next() {
			n += per + valueBytes(it.Key(), depth+1) + valueBytes(it.Value(), depth+1)
		}
		return n
	case reflect.Struct:
		if v.Type() == timeType {
			return 0 // its *Location is shared
		}
		var n int64
		for i := range v.NumField() {
			n += valueBytes(v.Field(i), depth+1)
		}
		return n
	}
	return 0
}

var timeType = reflect.TypeFor[time.Time]()
