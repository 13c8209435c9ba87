BpooledJ èÊž¾mC˜>pS¿°Ô4?²SE?•±
?¶›	?CNu¿