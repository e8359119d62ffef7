package cronjob

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestValidateSchedule(t *testing.T) {
	fld := field.NewPath("spec", "schedule")
	for schedule, want := range map[string][]string{
		"*/5 * * * *":      nil,
		"@hourly":          nil,
		"61 * * * *":       {"end of range (61) above maximum (59): 61"},
		"not a schedule":   {"expected exactly 5 fields, found 3: [not a schedule]"},
		"TZ=UTC 0 * * * *": {"cannot use TZ or CRON_TZ in schedule, use timeZone field instead"},
	} {
		var got []string
		for _, e := range validateSchedule(schedule, false, nil, fld) {
			got = append(got, e.Detail)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %q, want %q", schedule, got, want)
		}
	}
}
