package gittest

import "testing"

// MergedBranch is a repository whose pull request is merged with a merge
// commit: bootstrap makes the merge a multi-part task whose parts are the
// branch's commits, each a task of its own.
type MergedBranch struct {
	*Repo
	Fork  string   // the commit the branch started from
	Parts []string // the branch's commits, in order
	Merge string   // the merge commit
}

// ShopWithMergedBranch is a small Python shop (a cart, prices) whose
// branch of three commits — a discount module, prices using it, a cart
// checkout using prices — is merged as pull request #7 after a commit on
// main; main is checked out.
func ShopWithMergedBranch(t testing.TB) MergedBranch {
	r := New(t)
	r.Write("shop/__init__.py", "")
	r.Write("shop/cart.py", "class Cart:\n    def __init__(self):\n        self.items = []\n\n    def add(self, item):\n        self.items.append(item)\n")
	r.Write("shop/price.py", "def total(items):\n    return sum(i.price for i in items)\n")
	r.Commit("Create the shop package with a cart and prices")
	m := MergedBranch{Repo: r, Fork: r.Head()}

	r.Git("checkout", "-q", "-b", "discounts")
	r.Write("shop/discount.py", "def apply(price, rate):\n    return price * (1 - rate)\n")
	m.Parts = append(m.Parts, r.Commit("Add a discount module that applies a rate"))
	r.Write("shop/price.py", "from shop.discount import apply\n\n\ndef total(items, rate=0):\n    return apply(sum(i.price for i in items), rate)\n")
	m.Parts = append(m.Parts, r.Commit("Let total apply a discount rate to the sum"))
	r.Write("shop/cart.py", "from shop.price import total\n\n\nclass Cart:\n    def __init__(self):\n        self.items = []\n\n    def add(self, item):\n        self.items.append(item)\n\n    def checkout(self, rate=0):\n        return total(self.items, rate)\n")
	m.Parts = append(m.Parts, r.Commit("Add a checkout method to the cart with a rate"))
	r.Git("checkout", "-q", "main")
	r.Write("README.md", "# shop\n")
	r.Commit("Describe the shop package in a readme file")
	m.Merge = r.Merge("discounts", "Merge pull request #7 from me/discounts\n\nSupport discounts at checkout")
	return m
}
