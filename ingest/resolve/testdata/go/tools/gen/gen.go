package gen

func Run() {}
