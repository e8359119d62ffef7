package printers

import (
	"strings"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// rbac returns the printers of the rbac.authorization.k8s.io group's resources, by resource.
func rbac() map[string]Printer {
	return map[string]Printer{
		"rolebindings":        {cells: bindingCells},
		"clusterrolebindings": {cells: bindingCells},
		"clusterroles":        {cells: createdAt},
		"roles":               {cells: createdAt},
	}
}

// bindingCells prints a RoleBinding or a ClusterRoleBinding: its role,
// and its subjects by kind.
var bindingCells = anyOf(func(obj runtime.Object, now time.Time) []any {
	var name string
	var ref rbacv1.RoleRef
	var subjects []rbacv1.Subject
	var created metav1.Time
	switch b := obj.(type) {
	case *rbacv1.RoleBinding:
		name, ref, subjects, created = b.Name, b.RoleRef, b.Subjects, b.CreationTimestamp
	case *rbacv1.ClusterRoleBinding:
		name, ref, subjects, created = b.Name, b.RoleRef, b.Subjects, b.CreationTimestamp
	}
	var users, groups, sas []string
	for _, sub := range subjects {
		switch sub.Kind {
		case rbacv1.UserKind:
			users = append(users, sub.Name)
		case rbacv1.GroupKind:
			groups = append(groups, sub.Name)
		case rbacv1.ServiceAccountKind:
			sas = append(sas, sub.Namespace+"/"+sub.Name)
		}
	}
	return []any{name, ref.Kind + "/" + ref.Name, age(now, created), strings.Join(users, ", "), strings.Join(groups, ", "), strings.Join(sas, ", ")}
}, &rbacv1.RoleBinding{}, &rbacv1.ClusterRoleBinding{})
